// SPDX-License-Identifier: GPL-2.0
/*
 * lufnl: raw generic netlink messages to luf's family, built by hand (no
 * libnl), to send what lufctl never would.
 *
 *   lufnl set TYPE=KIND:VALUE...
 *	One LUF_CMD_SET message with these attributes, in this order, and
 *	print the kernel's answer: "ok", or "error <ERRNO> offs=<n>
 *	msg=<extack message>".  KIND is u8, u16, u32 or u64 (the attribute's
 *	payload size), or "none" (an empty payload).  Exit 0 either way.
 *   lufnl cmd CMD
 *	An empty request with command number CMD; print the answer as above
 *	(a reply carrying data prints "data").
 *   lufnl listen GROUP SECONDS
 *	Join the multicast group (events or stats) and print one line per
 *	message received for SECONDS: "event type=T knob=K value=V origin=O"
 *	or "event type=T reason=R count=C", or "stats attrs=N deferred=D".
 *   lufnl fuzz N SEED
 *	N random messages: random commands (valid or not), random flags and
 *	random attributes of random types and sizes, and now and then a
 *	message (not a set) whose lengths lie.  Every LUF_CMD_SET it sends carries at
 *	least one attribute the kernel must refuse, so none may succeed:
 *	exit 1 if one did (a refused message changed something, or a bad one
 *	was taken), else print the answers by errno and exit 0.
 *
 * Exit 2: usage or socket errors; 3: the family is not registered.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/luf_netlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define BUFSZ 16384

static int fd;
static unsigned int seq = 1;
static uint16_t family;
static uint32_t grp_events, grp_stats;

struct answer {
	int error;		/* 0: acked; > 0: errno */
	int data;		/* a reply with data came */
	int offs;
	char msg[256];
};

static void nl_open(void)
{
	int one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0) {
		perror("lufnl: socket");
		exit(2);
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
}

static void put_attr(char *buf, size_t *len, uint16_t type, const void *data,
		     uint16_t size)
{
	struct nlattr *a = (struct nlattr *)(buf + *len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + size;
	memcpy((char *)a + NLA_HDRLEN, data, size);
	*len += NLA_ALIGN(a->nla_len);
}

/* Send a message and read everything up to its ack or error. */
static void transact(char *buf, size_t len, struct answer *ans)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	char rbuf[BUFSZ];
	ssize_t n;

	memset(ans, 0, sizeof(*ans));
	ans->offs = -1;
	h->nlmsg_seq = ++seq;
	if (send(fd, buf, len, 0) < 0) {
		ans->error = errno;
		snprintf(ans->msg, sizeof(ans->msg), "send failed");
		return;
	}
	for (;;) {
		n = recv(fd, rbuf, sizeof(rbuf), 0);
		if (n < 0) {
			perror("lufnl: recv");
			exit(2);
		}
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			struct nlmsgerr *e;
			struct nlattr *a;
			int rem;

			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type != NLMSG_ERROR) {
				ans->data = 1;
				continue;
			}
			e = NLMSG_DATA(h);
			ans->error = -e->error;
			if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
				return;
			/* Capped: only the request's header follows. */
			a = (struct nlattr *)((char *)e + sizeof(*e));
			rem = (char *)h + h->nlmsg_len - (char *)a;
			while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= rem) {
				if ((a->nla_type & NLA_TYPE_MASK) ==
				    NLMSGERR_ATTR_MSG)
					snprintf(ans->msg, sizeof(ans->msg),
						 "%.*s",
						 (int)(a->nla_len - NLA_HDRLEN),
						 (char *)a + NLA_HDRLEN);
				if ((a->nla_type & NLA_TYPE_MASK) ==
				    NLMSGERR_ATTR_OFFS)
					memcpy(&ans->offs,
					       (char *)a + NLA_HDRLEN, 4);
				rem -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a +
						      NLA_ALIGN(a->nla_len));
			}
			return;
		}
	}
}

static size_t start(char *buf, uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);

	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	g->cmd = cmd;
	g->version = LUF_FAMILY_VERSION;
	return NLMSG_HDRLEN + GENL_HDRLEN;
}

static void finish(char *buf, size_t len)
{
	((struct nlmsghdr *)buf)->nlmsg_len = len;
}

/* Each entry: a nest of CTRL_ATTR_MCAST_GRP_NAME and _ID. */
static void groups(struct nlattr *nest)
{
	struct nlattr *e = (struct nlattr *)((char *)nest + NLA_HDRLEN);
	int rem = nest->nla_len - NLA_HDRLEN;

	while (rem >= NLA_HDRLEN && e->nla_len >= NLA_HDRLEN) {
		struct nlattr *a = (struct nlattr *)((char *)e + NLA_HDRLEN);
		int r = e->nla_len - NLA_HDRLEN;
		const char *name = NULL;
		uint32_t id = 0;

		while (r >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
				name = (char *)a + NLA_HDRLEN;
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_ID)
				memcpy(&id, (char *)a + NLA_HDRLEN, 4);
			r -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
		if (name && !strcmp(name, LUF_MCGRP_EVENTS))
			grp_events = id;
		if (name && !strcmp(name, LUF_MCGRP_STATS))
			grp_stats = id;
		rem -= NLA_ALIGN(e->nla_len);
		e = (struct nlattr *)((char *)e + NLA_ALIGN(e->nla_len));
	}
}

static void resolve(void)
{
	char buf[256], rbuf[BUFSZ];
	struct nlmsghdr *h;
	size_t len;
	ssize_t n;

	len = start(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)NLMSG_DATA(buf))->version = 1;
	put_attr(buf, &len, CTRL_ATTR_FAMILY_NAME, LUF_FAMILY_NAME,
		 sizeof(LUF_FAMILY_NAME));
	finish(buf, len);
	((struct nlmsghdr *)buf)->nlmsg_seq = ++seq;
	if (send(fd, buf, len, 0) < 0) {
		perror("lufnl: send");
		exit(2);
	}
	n = recv(fd, rbuf, sizeof(rbuf), 0);
	h = (struct nlmsghdr *)rbuf;
	if (n < 0 || !NLMSG_OK(h, n) || h->nlmsg_type == NLMSG_ERROR) {
		fprintf(stderr, "lufnl: family %s not registered\n",
			LUF_FAMILY_NAME);
		exit(3);
	}
	{
		struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(h) +
						     GENL_HDRLEN);
		int rem = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

		while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
			if (a->nla_type == CTRL_ATTR_FAMILY_ID)
				memcpy(&family, (char *)a + NLA_HDRLEN, 2);
			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS)
				groups(a);
			rem -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
	}
	if (!family) {
		fprintf(stderr, "lufnl: no family id in the reply\n");
		exit(2);
	}
}

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ERANGE: return "ERANGE";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	default: return strerror(e);
	}
}

static void print_answer(const struct answer *ans)
{
	if (!ans->error)
		printf("%s\n", ans->data ? "data" : "ok");
	else
		printf("error %s offs=%d msg=%s\n", errname(ans->error),
		       ans->offs, ans->msg);
}

/* TYPE=KIND:VALUE */
static void put_arg(char *buf, size_t *len, const char *arg)
{
	unsigned long long v = 0;
	char kind[8] = "";
	unsigned int type;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	if (sscanf(arg, "%u=%7[a-z0-9]:%llu", &type, kind, &v) < 2) {
		fprintf(stderr, "lufnl: bad attribute '%s'\n", arg);
		exit(2);
	}
	if (!strcmp(kind, "u8")) {
		u8 = v;
		put_attr(buf, len, type, &u8, 1);
	} else if (!strcmp(kind, "u16")) {
		u16 = v;
		put_attr(buf, len, type, &u16, 2);
	} else if (!strcmp(kind, "u32")) {
		u32 = v;
		put_attr(buf, len, type, &u32, 4);
	} else if (!strcmp(kind, "u64")) {
		u64 = v;
		put_attr(buf, len, type, &u64, 8);
	} else if (!strcmp(kind, "none")) {
		put_attr(buf, len, type, NULL, 0);
	} else {
		fprintf(stderr, "lufnl: bad kind in '%s'\n", arg);
		exit(2);
	}
}

/* A knob's attribute: numa came later and is numbered after the state. */
static uint16_t rand_knob(void)
{
	int k = rand() % (LUF_A_STATUS_STATS_INTERVAL_MS - LUF_A_STATUS_ENABLED + 2);

	return k ? LUF_A_STATUS_ENABLED + k - 1 : LUF_A_STATUS_NUMA;
}

/*
 * An attribute the set must refuse, whatever else the message holds: a
 * read-only status attribute, an unknown type, a knob of the wrong size, or
 * a knob out of range.
 */
static void put_bad(char *buf, size_t *len)
{
	uint32_t big = 0xffffffff;
	uint16_t small = 1;

	switch (rand() % 4) {
	case 0:
		put_attr(buf, len, LUF_A_STATUS_HOOKS, &big, 4);
		break;
	case 1:
		put_attr(buf, len, LUF_A_STATUS_MAX + 1 + rand() % 100, &big, 4);
		break;
	case 2:
		put_attr(buf, len, rand_knob(), &small, 2);
		break;
	default:
		/* Every knob's range ends below 2^31. */
		put_attr(buf, len, rand_knob(), &big, 4);
		break;
	}
}

static int fuzz(long n, unsigned int seed)
{
	/* A dump is refused before any parsing: one message in eight. */
	static const int flagset[] = { 0, 0, 0, 0, NLM_F_ACK, NLM_F_ACK,
				       NLM_F_ACK, NLM_F_DUMP };
	long counts[200] = { 0 }, applied = 0, i;
	char buf[1024];
	struct answer ans;

	srand(seed);
	for (i = 0; i < n; i++) {
		uint8_t cmd = rand() % 4 ? LUF_CMD_SET : rand() % 10;
		int nattrs = rand() % 6, bad_at = -1, k;
		size_t len;

		/*
		 * No bytes of the last message: a lying length must not make
		 * a short "bad" attribute a good one out of leftovers.
		 */
		memset(buf, 0, sizeof(buf));
		len = start(buf, family, cmd, flagset[rand() % 8] | NLM_F_ACK);

		if (cmd == LUF_CMD_SET)
			bad_at = rand() % (nattrs + 1);
		for (k = 0; k <= nattrs; k++) {
			unsigned char data[16];
			int size = rand() % 13, j;

			if (k == bad_at) {
				put_bad(buf, &len);
				continue;
			}
			if (k == nattrs)
				break;
			for (j = 0; j < size; j++)
				data[j] = rand();
			/* Mostly luf's own attribute numbers. */
			put_attr(buf, &len,
				 rand() % 8 ? rand() % (LUF_A_STATUS_MAX + 2) :
					      rand() % 65536,
				 data, size);
		}
		finish(buf, len);
		/*
		 * Now and then, lengths that lie, in messages other than sets:
		 * in a set, a lie could swallow or reshape the bad attribute
		 * into a good one, and the test could no longer tell.
		 */
		if (rand() % 16 == 0 && cmd != LUF_CMD_SET) {
			struct nlattr *a = (struct nlattr *)(buf + NLMSG_HDRLEN +
							     GENL_HDRLEN);

			if (len > NLMSG_HDRLEN + GENL_HDRLEN)
				a->nla_len = rand() % 64;
		}
		transact(buf, len, &ans);
		if (cmd == LUF_CMD_SET && !ans.error) {
			fprintf(stderr, "lufnl: message %ld: a set with a bad attribute was applied\n",
				i);
			applied++;
		}
		counts[ans.error < 200 ? ans.error : 199]++;
	}
	printf("fuzz: %ld messages, seed %u:", n, seed);
	for (i = 0; i < 200; i++)
		if (counts[i])
			printf(" %s=%ld", i ? errname(i) : "ok", counts[i]);
	printf("\n");
	return applied ? 1 : 0;
}

static int listen_group(const char *name, int seconds)
{
	uint32_t grp = !strcmp(name, "events") ? grp_events :
		       !strcmp(name, "stats") ? grp_stats : 0;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	struct timespec t0, t;
	char rbuf[BUFSZ];
	long ms = 0;

	if (!grp) {
		fprintf(stderr, "lufnl: no multicast group %s\n", name);
		return 2;
	}
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		       sizeof(grp)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("lufnl: joining the group");
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms < seconds * 1000L) {
		ssize_t n = recv(fd, rbuf, sizeof(rbuf), 0);

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000L +
		     (t.tv_nsec - t0.tv_nsec) / 1000000;
		struct nlmsghdr *h;

		if (n < 0)
			continue;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			struct genlmsghdr *g = NLMSG_DATA(h);
			struct nlattr *a = (struct nlattr *)((char *)g + GENL_HDRLEN);
			int rem = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
			char line[512] = "";
			size_t l = 0;
			int nattrs = 0;

			if (h->nlmsg_type != family)
				continue;
			l += snprintf(line + l, sizeof(line) - l, "%s",
				      g->cmd == LUF_CMD_EVENT ? "event" :
				      g->cmd == LUF_CMD_STATS_NTF ? "stats" :
				      "unknown-cmd");
			while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
				void *p = (char *)a + NLA_HDRLEN;
				uint64_t v64;
				uint32_t v32;

				nattrs++;
				if (g->cmd == LUF_CMD_EVENT) {
					switch (a->nla_type) {
					case LUF_A_EVENT_TYPE:
					case LUF_A_EVENT_ORIGIN:
						memcpy(&v32, p, 4);
						l += snprintf(line + l, sizeof(line) - l,
							      " %s=%u",
							      a->nla_type == LUF_A_EVENT_TYPE ?
							      "type" : "origin", v32);
						break;
					case LUF_A_EVENT_KNOB:
					case LUF_A_EVENT_REASON:
						l += snprintf(line + l, sizeof(line) - l,
							      " %s=%s",
							      a->nla_type == LUF_A_EVENT_KNOB ?
							      "knob" : "reason", (char *)p);
						break;
					case LUF_A_EVENT_VALUE:
					case LUF_A_EVENT_COUNT:
						memcpy(&v64, p, 8);
						l += snprintf(line + l, sizeof(line) - l,
							      " %s=%llu",
							      a->nla_type == LUF_A_EVENT_VALUE ?
							      "value" : "count",
							      (unsigned long long)v64);
						break;
					}
				} else if (a->nla_type == LUF_A_STATS_DEFERRED) {
					memcpy(&v64, p, 8);
					l += snprintf(line + l, sizeof(line) - l,
						      " deferred=%llu",
						      (unsigned long long)v64);
				}
				rem -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
			}
			if (g->cmd == LUF_CMD_STATS_NTF)
				snprintf(line + l, sizeof(line) - l, " attrs=%d",
					 nattrs);
			printf("%s\n", line);
			fflush(stdout);
		}
	}
	printf("window_ms=%ld\n", ms);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[1024];
	struct answer ans;
	size_t len;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: lufnl set TYPE=KIND:VALUE... | cmd CMD | listen GROUP SECONDS | fuzz N SEED\n");
		return 2;
	}
	nl_open();
	resolve();
	if (!strcmp(argv[1], "set")) {
		if (argc > 2 + 64) {
			fprintf(stderr, "lufnl: at most 64 attributes\n");
			return 2;
		}
		len = start(buf, family, LUF_CMD_SET, NLM_F_ACK);
		for (i = 2; i < argc; i++)
			put_arg(buf, &len, argv[i]);
		finish(buf, len);
		transact(buf, len, &ans);
		print_answer(&ans);
		return 0;
	}
	if (!strcmp(argv[1], "cmd") && argc == 3) {
		len = start(buf, family, atoi(argv[2]), NLM_F_ACK);
		finish(buf, len);
		transact(buf, len, &ans);
		print_answer(&ans);
		return 0;
	}
	if (!strcmp(argv[1], "listen") && argc == 4)
		return listen_group(argv[2], atoi(argv[3]));
	if (!strcmp(argv[1], "fuzz") && argc == 4)
		return fuzz(atol(argv[2]), strtoul(argv[3], NULL, 10));
	fprintf(stderr, "lufnl: bad usage\n");
	return 2;
}
