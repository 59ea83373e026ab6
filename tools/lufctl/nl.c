// SPDX-License-Identifier: GPL-2.0
/*
 * lufctl's netlink client: the requests of the "luf" generic netlink
 * family (STATUS_GET, STATS_GET, SET), their replies and the kernel's
 * extended acks, through libnl-genl-3.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "lufctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* ------------------------------------------------------------------ */
/* Requests */

/*
 * A reply that never comes (a wedged module) must not hang lufctl forever.
 * Generous: switching enabled off completes every outstanding flush first.
 */
#define NL_TIMEOUT_S	10

/* One request and what came back for it. */
struct req {
	const char *what;		/* for messages: "status", "set", ... */
	int (*parse)(struct nl_msg *msg, void *arg);
	void *arg;
	struct nl_msg *sent;		/* to find the attribute at an offset */
	bool done;
	bool bad_reply;
	int replies;
	int error;			/* the errno the kernel answered with */
	char ext_msg[256];		/* NLMSGERR_ATTR_MSG */
	int bad_attr;			/* type at NLMSGERR_ATTR_OFFS, or 0 */
	uint32_t bad_value;
	bool bad_value_ok;
	int miss_type;			/* NLMSGERR_ATTR_MISS_TYPE, or 0 */
};

/*
 * The extended ack: with NETLINK_EXT_ACK the kernel appends TLVs to the
 * error (or ack) message, after the echoed request - after its header only
 * when the kernel capped the echo (NETLINK_CAP_ACK).  libnl 3.7 does not
 * parse them, so we do.
 */
static void read_ext_ack(struct req *r, const struct nlmsghdr *nlh)
{
	static struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG]	= { .type = NLA_STRING },
		[NLMSGERR_ATTR_OFFS]	= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
#ifdef NLMSGERR_ATTR_MISS_TYPE
		[NLMSGERR_ATTR_MISS_TYPE] = { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
#endif
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const struct nlmsgerr *e;
	size_t payload, hlen;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	e = (const struct nlmsgerr *)NLMSG_DATA(nlh);
	payload = nlh->nlmsg_len - NLMSG_HDRLEN;
	hlen = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len >= NLMSG_HDRLEN)
		hlen += e->msg.nlmsg_len - NLMSG_HDRLEN;
	hlen = NLMSG_ALIGN(hlen);
	if (hlen >= payload)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + hlen), (int)(payload - hlen),
		      pol) < 0)
		return;

	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(r->ext_msg, sizeof(r->ext_msg), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
#ifdef NLMSGERR_ATTR_MISS_TYPE
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		r->miss_type = (int)nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
#endif
	/*
	 * The offset is from the start of our request: find the attribute
	 * there to name the knob the kernel objects to.
	 */
	if (tb[NLMSGERR_ATTR_OFFS] && r->sent) {
		const struct nlmsghdr *req = nlmsg_hdr(r->sent);
		uint32_t off = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
		const struct nlattr *a;

		if (off < NLMSG_HDRLEN + GENL_HDRLEN ||
		    (uint64_t)off + NLA_HDRLEN > req->nlmsg_len)
			return;
		a = (const struct nlattr *)((const char *)req + off);
		if (a->nla_len < NLA_HDRLEN ||
		    (uint64_t)off + a->nla_len > req->nlmsg_len)
			return;
		r->bad_attr = nla_type(a);
		if (nla_len(a) == 4) {
			memcpy(&r->bad_value, nla_data(a), 4);
			r->bad_value_ok = true;
		}
	}
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	r->replies++;
	if (r->parse && r->parse(msg, r->arg) < 0)
		r->bad_reply = true;
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	r->done = true;
	/* A successful request may still carry a warning. */
	read_ext_ack(r, nlmsg_hdr(msg));
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct req *r = arg;

	/*
	 * libnl passes the error message's payload; its header (with the
	 * NLM_F_ACK_TLVS and NLM_F_CAPPED flags) is right before it.
	 */
	read_ext_ack(r, (const struct nlmsghdr *)((char *)e - NLMSG_HDRLEN));
	r->error = e->error < 0 ? -e->error : e->error;
	r->done = true;
	return NL_STOP;
}

/*
 * Open a socket to the luf family.  Returns 0, or an exit status after
 * printing why not.
 */
int lufctl_nl_open(struct lufctl_nl *n)
{
	struct timeval tv = { .tv_sec = NL_TIMEOUT_S };
	int one = 1, err, fd;

	n->sk = nl_socket_alloc();
	if (!n->sk) {
		lufctl_err("out of memory");
		return EX_RUNTIME;
	}
	err = genl_connect(n->sk);
	if (err < 0) {
		lufctl_err("cannot open a generic netlink socket: %s",
			   nl_geterror(err));
		return EX_RUNTIME;
	}
	fd = nl_socket_get_fd(n->sk);
	/*
	 * Ask for the kernel's reasons (extended acks), and for capped
	 * echoes: we keep our request and do not need it back.  Kernels
	 * without these options still answer with plain errors.
	 */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* libnl reports any failure of the lookup as "not found". */
	n->family = genl_ctrl_resolve(n->sk, LUF_FAMILY_NAME);
	if (n->family < 0) {
		lufctl_err("the luf generic netlink family is not registered: is the luf module loaded? (modprobe luf)");
		return EX_NOLUF;
	}
	return EX_OK;
}

void lufctl_nl_close(struct lufctl_nl *n)
{
	if (n->sk)
		nl_socket_free(n->sk);
	n->sk = NULL;
}

/* A request with room for @nr_u32 u32 attributes. */
static struct nl_msg *new_msg(const struct lufctl_nl *n, uint8_t cmd,
			      unsigned int nr_u32)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc_size(nlmsg_total_size(GENL_HDRLEN +
			       nr_u32 * nla_total_size(sizeof(uint32_t))));

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, n->family, 0, 0, cmd,
			 LUF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * Send @msg and collect the answer into @r.  Returns 0 if the kernel
 * acknowledged, the positive errno it refused with, or a negative libnl
 * error if the exchange itself failed.
 */
static int do_request(struct lufctl_nl *n, struct nl_msg *msg, struct req *r)
{
	struct nl_cb *cb;
	int err;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);
	r->sent = msg;

	err = nl_send_auto(n->sk, msg);
	if (err < 0)
		goto out;
	while (!r->done) {
		err = nl_recvmsgs(n->sk, cb);
		if (r->done)
			break;
		if (err < 0)
			goto out;
	}
	err = r->error;
out:
	nl_cb_put(cb);
	return err;
}

static const char *attr_knob_name(int attr)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		if (lufctl_knobs[i].attr == attr)
			return lufctl_knobs[i].name;
	return NULL;
}

/* Explain a failed do_request(); returns the exit status. */
static int report(const struct req *r, int err)
{
	const char *name;

	if (err < 0) {
		if (err == -NLE_AGAIN)
			lufctl_err("%s: no answer from the kernel within %d s",
				   r->what, NL_TIMEOUT_S);
		else
			lufctl_err("%s: netlink: %s", r->what,
				   nl_geterror(err));
		return EX_RUNTIME;
	}
	if (err == EPERM || err == EACCES) {
		if (!strcmp(r->what, "set"))
			lufctl_err("not permitted: setting luf's knobs needs CAP_NET_ADMIN");
		else
			lufctl_err("not permitted: %s: %s", r->what,
				   strerror(err));
		return EX_PERM;
	}
	if (r->ext_msg[0])
		lufctl_err("%s refused by the kernel: %s (%s)", r->what,
			   r->ext_msg, strerror(err));
	else
		lufctl_err("%s refused by the kernel: %s", r->what,
			   strerror(err));
	if (r->bad_attr) {
		name = attr_knob_name(r->bad_attr);
		if (name && r->bad_value_ok)
			lufctl_err("the kernel pointed at %s=%" PRIu32, name,
				   r->bad_value);
		else if (name)
			lufctl_err("the kernel pointed at %s", name);
		else
			lufctl_err("the kernel pointed at attribute %d",
				   r->bad_attr);
	}
	if (r->miss_type) {
		name = attr_knob_name(r->miss_type);
		if (name)
			lufctl_err("the kernel misses %s", name);
		else
			lufctl_err("the kernel misses attribute %d",
				   r->miss_type);
	}
	return EX_RUNTIME;
}

/* A successful request's warning, if the kernel attached one. */
static void report_warning(const struct req *r)
{
	if (r->ext_msg[0])
		lufctl_err("%s: warning from the kernel: %s", r->what,
			   r->ext_msg);
}

/* ------------------------------------------------------------------ */
/* STATUS_GET and STATS_GET */

/* Exact lengths: a kernel that sends a u64 for a u32 is a bug to show. */
static struct nla_policy status_policy[LUF_A_STATUS_MAX + 1];
static struct nla_policy stats_policy[LUF_A_STATS_MAX + 1];

void lufctl_nl_init(void)
{
	unsigned int a;

	for (a = STATUS_FIRST; a <= STATUS_LAST; a++) {
		uint16_t len = lufctl_status_fields[a].u64 ? 8 : 4;

		status_policy[a].type = lufctl_status_fields[a].u64 ? NLA_U64 :
								      NLA_U32;
		status_policy[a].minlen = len;
		status_policy[a].maxlen = len;
	}
	for (a = 0; a < NR_STATS; a++) {
		stats_policy[LUF_A_STATS_OFFERED + a].type = NLA_U64;
		stats_policy[LUF_A_STATS_OFFERED + a].minlen = 8;
		stats_policy[LUF_A_STATS_OFFERED + a].maxlen = 8;
	}
}

static int parse_status(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[LUF_A_STATUS_MAX + 1];
	struct status *st = arg;
	unsigned int a;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, LUF_A_STATUS_MAX,
			  status_policy) < 0)
		return -1;
	for (a = STATUS_FIRST; a <= STATUS_LAST; a++) {
		if (!tb[a])
			continue;
		st->have[a] = true;
		st->v[a] = lufctl_status_fields[a].u64 ? nla_get_u64(tb[a]) :
							 nla_get_u32(tb[a]);
	}
	st->got = true;
	return 0;
}

/* Both the STATS_GET reply and the STATS_NTF notification. */
int lufctl_nl_parse_stats(struct nlmsghdr *nlh, struct stats *s)
{
	struct nlattr *tb[LUF_A_STATS_MAX + 1];
	unsigned int i;

	if (genlmsg_parse(nlh, 0, tb, LUF_A_STATS_MAX, stats_policy) < 0)
		return -1;
	for (i = 0; i < NR_STATS; i++) {
		struct nlattr *a = tb[LUF_A_STATS_OFFERED + i];

		s->have[i] = a;
		s->v[i] = a ? nla_get_u64(a) : 0;
	}
	s->got = true;
	return 0;
}

static int parse_stats(struct nl_msg *msg, void *arg)
{
	return lufctl_nl_parse_stats(nlmsg_hdr(msg), arg);
}

/* A do-request without attributes; returns an exit status. */
static int get_reply(struct lufctl_nl *n, uint8_t cmd, const char *what,
		     int (*parse)(struct nl_msg *, void *), void *arg,
		     bool *got)
{
	struct req r = { .what = what, .parse = parse, .arg = arg };
	struct nl_msg *msg;
	int err;

	msg = new_msg(n, cmd, 0);
	if (!msg) {
		lufctl_err("out of memory");
		return EX_RUNTIME;
	}
	err = do_request(n, msg, &r);
	nlmsg_free(msg);
	if (err)
		return report(&r, err);
	report_warning(&r);
	if (r.bad_reply) {
		lufctl_err("%s: malformed reply from the kernel", what);
		return EX_RUNTIME;
	}
	if (!*got) {
		lufctl_err("%s: the kernel acknowledged without a reply", what);
		return EX_RUNTIME;
	}
	return EX_OK;
}

int lufctl_nl_get_status(struct lufctl_nl *n, struct status *st)
{
	memset(st, 0, sizeof(*st));
	return get_reply(n, LUF_CMD_STATUS_GET, "status", parse_status, st,
			 &st->got);
}

int lufctl_nl_get_stats(struct lufctl_nl *n, struct stats *s)
{
	memset(s, 0, sizeof(*s));
	return get_reply(n, LUF_CMD_STATS_GET, "stats", parse_stats, s,
			 &s->got);
}

/* ------------------------------------------------------------------ */
/* SET */

/*
 * One SET request with @nr pairs, in order; returns an exit status.  If
 * @refused is given, it tells whether the kernel answered with an error,
 * which means that it changed nothing (SET is all or nothing), as opposed
 * to an exchange that failed on our side.
 */
int lufctl_nl_set(struct lufctl_nl *n, const struct pair *p, unsigned int nr,
		  bool *refused)
{
	struct req r = { .what = "set" };
	struct nl_msg *msg;
	unsigned int i;
	int err;

	if (refused)
		*refused = false;
	/* The caller checked @nr against SET_MAX_PAIRS: the room is there. */
	msg = new_msg(n, LUF_CMD_SET, nr);
	if (!msg) {
		lufctl_err("out of memory");
		return EX_RUNTIME;
	}
	for (i = 0; i < nr; i++) {
		if (nla_put_u32(msg, p[i].knob->attr, p[i].value) < 0) {
			nlmsg_free(msg);
			lufctl_err("set: cannot build the request");
			return EX_RUNTIME;
		}
	}
	err = do_request(n, msg, &r);
	nlmsg_free(msg);
	if (err > 0 && refused)
		*refused = true;
	if (err)
		return report(&r, err);
	report_warning(&r);
	return EX_OK;
}

/* ------------------------------------------------------------------ */
/*
 * Static linking.  libnl's address and protocol helpers (nl_addr_info(),
 * nl_ip_proto2str(), ...) sit in objects we cannot avoid pulling in, and
 * they refer to glibc's NSS lookups, which make every static link warn.
 * lufctl never resolves a name: the Makefile redirects those references
 * here (ld --wrap) so that the NSS code is neither linked nor warned about.
 */
int __wrap_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res);
struct protoent *__wrap_getprotobynumber(int proto);
struct protoent *__wrap_getprotobyname(const char *name);

int __wrap_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res)
{
	return EAI_FAIL;
}

struct protoent *__wrap_getprotobynumber(int proto)
{
	return NULL;
}

struct protoent *__wrap_getprotobyname(const char *name)
{
	return NULL;
}

