/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	module/netlink/luf.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_LUF_GEN_H
#define _LINUX_LUF_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/luf_netlink.h>

int luf_nl_status_get_doit(struct sk_buff *skb, struct genl_info *info);
int luf_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int luf_nl_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	LUF_NLGRP_EVENTS,
	LUF_NLGRP_STATS,
};

extern struct genl_family luf_nl_family;

#endif /* _LINUX_LUF_GEN_H */
