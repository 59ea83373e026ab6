// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	module/netlink/luf.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "luf-nl-gen.h"

#include <uapi/linux/luf_netlink.h>

/* LUF_CMD_SET - do */
static const struct nla_policy luf_set_nl_policy[LUF_A_STATUS_NUMA + 1] = {
	[LUF_A_STATUS_ENABLED] = { .type = NLA_U32, },
	[LUF_A_STATUS_MAX_DEFER_MS] = { .type = NLA_U32, },
	[LUF_A_STATUS_MAX_PAGES] = { .type = NLA_U32, },
	[LUF_A_STATUS_MIGRATION] = { .type = NLA_U32, },
	[LUF_A_STATUS_RECLAIM] = { .type = NLA_U32, },
	[LUF_A_STATUS_RESERVE] = { .type = NLA_U32, },
	[LUF_A_STATUS_STATS_INTERVAL_MS] = { .type = NLA_U32, },
	[LUF_A_STATUS_NUMA] = { .type = NLA_U32, },
};

/* Ops table for luf */
static const struct genl_split_ops luf_nl_ops[] = {
	{
		.cmd	= LUF_CMD_STATUS_GET,
		.doit	= luf_nl_status_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= LUF_CMD_STATS_GET,
		.doit	= luf_nl_stats_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= LUF_CMD_SET,
		.doit		= luf_nl_set_doit,
		.policy		= luf_set_nl_policy,
		.maxattr	= LUF_A_STATUS_NUMA,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group luf_nl_mcgrps[] = {
	[LUF_NLGRP_EVENTS] = { "events", },
	[LUF_NLGRP_STATS] = { "stats", },
};

struct genl_family luf_nl_family __ro_after_init = {
	.name		= LUF_FAMILY_NAME,
	.version	= LUF_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= luf_nl_ops,
	.n_split_ops	= ARRAY_SIZE(luf_nl_ops),
	.mcgrps		= luf_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(luf_nl_mcgrps),
};
