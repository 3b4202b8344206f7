/*
 * outbox.c - messages committed with the changes that caused them (see
 * outbox.h).
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "outbox.h"
#include "xmalloc.h"
#include "store.h"

/* A message captured inside a batch. */
struct captured {
	char *network, *target, *flow;
	int private_;
	struct text text;
	uint64_t expires;        /* struct send_info; never stored if set */
};

/*
 * A tracked message of a flow handed to an adapter and not reported sent
 * yet.  The flow is known by flow_key(): two flows with one key (one
 * chance in 2^64) would only make one table's clock wait for the other's
 * lines.
 */
struct unsent {
	uint64_t id;
	uint64_t flow;
};

struct outbox {
	struct store *store;
	outbox_send_fn send;
	void *arg;
	int depth;
	struct captured *msgs;
	int nmsgs, cap;
	/*
	 * The flows the last batch spoke for: network, channel pairs, as
	 * offsets of NUL-terminated names in one buffer that the next batch
	 * reuses (no allocation per event once it has grown).
	 */
	size_t *flows;
	int nflows, flows_cap;
	char *names;
	size_t names_len, names_cap;
	/*
	 * The private rows outbox_load() sent again, each matched at most
	 * once by an identical message while skip_resent is on.
	 */
	struct captured *resent;
	int nresent, resent_cap;
	int skip_resent;
	/* What the flows' readers have not seen yet, oldest first. */
	struct unsent *unsent;
	int nunsent, unsent_cap;
	int tracked;             /* the last batch stored a change */
	int open;                /* the store's batch began */
	int stale;               /* rows outbox_load() found too old */
};

struct outbox *
outbox_create(struct store *store, outbox_send_fn send, void *arg)
{
	struct outbox *outbox = xcalloc(1, sizeof(*outbox));

	outbox->store = store;
	outbox->send = send;
	outbox->arg = arg;
	return outbox;
}

static void
captured_finish(struct captured *c)
{
	free(c->network);       /* with target and flow: xstrdupv() */
	text_finish(&c->text);
}

static void
captured_clear(struct outbox *outbox)
{
	for (int i = 0; i < outbox->nmsgs; i++)
		captured_finish(&outbox->msgs[i]);
	outbox->nmsgs = 0;
}

static void
flows_clear(struct outbox *outbox)
{
	outbox->nflows = 0;
	outbox->names_len = 0;
}

/* Copies s to the end of the names buffer; returns its offset. */
static size_t
name_add(struct outbox *outbox, const char *s)
{
	size_t len = strlen(s) + 1, at = outbox->names_len;

	if (at + len > outbox->names_cap) {
		size_t cap = outbox->names_cap > 0 ? outbox->names_cap : 256;

		while (cap < at + len)
			cap *= 2;
		outbox->names = xrealloc(outbox->names, cap);
		outbox->names_cap = cap;
	}
	memcpy(outbox->names + at, s, len);
	outbox->names_len += len;
	return at;
}

void
outbox_destroy(struct outbox *outbox)
{
	if (outbox == NULL)
		return;
	if (outbox->depth > 0)
		store_batch_rollback(outbox->store);
	captured_clear(outbox);
	free(outbox->msgs);
	for (int i = 0; i < outbox->nresent; i++)
		captured_finish(&outbox->resent[i]);
	free(outbox->resent);
	free(outbox->flows);
	free(outbox->names);
	free(outbox->unsent);
	free(outbox);
}

int
outbox_inside(const struct outbox *outbox)
{
	return outbox->depth > 0;
}

void
outbox_enter(struct outbox *outbox)
{
	if (outbox->depth++ > 0)
		return;
	/*
	 * Without a batch every store call still commits on its own: the
	 * event then runs as before, its messages untracked.
	 */
	outbox->open = store_batch_begin(outbox->store) == 0;
	if (!outbox->open)
		log_error("store: cannot open a transaction; this event's "
		    "messages are not kept");
}

/* Remembers a flow the batch spoke for, once each. */
static void
flow_note(struct outbox *outbox, const char *network, const char *flow)
{
	for (int i = 0; i < outbox->nflows; i++)
		if (strcmp(outbox_flow_network(outbox, i), network) == 0 &&
		    strcmp(outbox_flow_name(outbox, i), flow) == 0)
			return;
	xarray_grow((void **)&outbox->flows, &outbox->flows_cap,
	    2 * (outbox->nflows + 1), sizeof(*outbox->flows));
	outbox->flows[2 * outbox->nflows] = name_add(outbox, network);
	outbox->flows[2 * outbox->nflows + 1] = name_add(outbox, flow);
	outbox->nflows++;
}

/* A flow's key: FNV-1a over the network's name, a NUL and the flow's. */
static uint64_t
flow_key(const char *network, const char *flow)
{
	uint64_t h = 14695981039346656037ULL;

	for (const char *p = network; ; p++) {
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		if (*p == '\0')
			break;
	}
	for (const char *p = flow; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

static void
send_one(struct outbox *outbox, const struct captured *c, uint64_t id)
{
	struct send_info info = {
		.id = id, .flow = c->flow, .expires = c->expires,
	};

	/* Noted first: an adapter may report it sent at once. */
	if (id != 0 && c->flow != NULL) {
		xarray_grow((void **)&outbox->unsent, &outbox->unsent_cap,
		    outbox->nunsent + 1, sizeof(*outbox->unsent));
		outbox->unsent[outbox->nunsent].id = id;
		outbox->unsent[outbox->nunsent++].flow = flow_key(c->network,
		    c->flow);
	}
	if (outbox->send(outbox->arg, c->network, c->target, c->private_,
	    &c->text, &info) != 0 && id != 0)
		outbox_sent(outbox, id);
}

/*
 * Within one event, channel lines leave before private ones (a stable
 * partition): a private line never overtakes the channel line that
 * caused it (the move before the prompt it makes), and nothing of the
 * next round (its hands) leaves before the end of the last one is said.
 */
static void
order_causally(struct outbox *outbox)
{
	struct captured tmp;
	int k = 0;

	for (int i = 0; i < outbox->nmsgs; i++) {
		if (outbox->msgs[i].private_)
			continue;
		if (i != k) {
			tmp = outbox->msgs[i];
			memmove(&outbox->msgs[k + 1], &outbox->msgs[k],
			    (size_t)(i - k) * sizeof(*outbox->msgs));
			outbox->msgs[k] = tmp;
		}
		k++;
	}
}

int
outbox_leave(struct outbox *outbox)
{
	int64_t *ids = NULL, few[32];
	int rc = 0, tracked;

	if (outbox->depth == 0 || --outbox->depth > 0)
		return 0;
	flows_clear(outbox);
	/* Without a batch each store call stood alone: say what it said. */
	tracked = outbox->open && store_batch_changes(outbox->store) > 0;
	order_causally(outbox);
	if (tracked && outbox->nmsgs > 0)
		ids = outbox->nmsgs <= (int)(sizeof(few) / sizeof(few[0])) ?
		    few : xcalloc((size_t)outbox->nmsgs, sizeof(*ids));
	for (int i = 0; rc == 0 && tracked && i < outbox->nmsgs; i++) {
		struct captured *c = &outbox->msgs[i];
		struct store_message m = {
			.network = c->network, .target = c->target,
			.private_ = c->private_, .flow = c->flow,
			.body = text_str(&c->text),
		};

		/* A message that expires is no use after a restart. */
		if (c->expires != 0)
			ids[i] = 0;
		else if ((ids[i] = store_outbox_add(outbox->store, &m)) < 0)
			rc = -1;
	}
	if (!outbox->open) {
		/* Nothing to commit. */
	} else if (rc != 0) {
		store_batch_rollback(outbox->store);
	} else if (store_batch_commit(outbox->store) != 0) {
		rc = -1;
	}
	outbox->tracked = tracked && rc == 0;
	for (int i = 0; i < outbox->nmsgs; i++)
		if (outbox->msgs[i].flow != NULL)
			flow_note(outbox, outbox->msgs[i].network,
			    outbox->msgs[i].flow);
	if (rc != 0) {
		/* A full disk's later refusals are counted by the store. */
		if (!store_full_quiet(outbox->store))
			log_error("store: a change and its %d messages were "
			    "not stored; nothing of it is said",
			    outbox->nmsgs);
	} else {
		/*
		 * Sent in order.  The list is taken first: should a send
		 * start another event, that one captures into a new list.
		 */
		struct captured *msgs = outbox->msgs;
		int n = outbox->nmsgs, cap = outbox->cap;

		outbox->msgs = NULL;
		outbox->nmsgs = outbox->cap = 0;
		for (int i = 0; i < n; i++)
			send_one(outbox, &msgs[i], ids != NULL ?
			    (uint64_t)ids[i] : 0);
		for (int i = 0; i < n; i++)
			captured_finish(&msgs[i]);
		/* The list serves the next event, unless one began inside. */
		if (outbox->msgs == NULL) {
			outbox->msgs = msgs;
			outbox->cap = cap;
		} else {
			free(msgs);
		}
		if (ids != few)
			free(ids);
		return 0;
	}
	captured_clear(outbox);
	if (ids != few)
		free(ids);
	return rc;
}

int
outbox_flow_count(const struct outbox *outbox)
{
	return outbox->nflows;
}

int
outbox_last_stored(const struct outbox *outbox)
{
	return outbox->tracked;
}

const char *
outbox_flow_network(const struct outbox *outbox, int i)
{
	return outbox->names + outbox->flows[2 * i];
}

const char *
outbox_flow_name(const struct outbox *outbox, int i)
{
	return outbox->names + outbox->flows[2 * i + 1];
}

/* Copies a message into c (zeroed), its strings and text its own. */
static void
captured_copy(struct captured *c, const char *network, const char *target,
    int private_, const char *flow, const struct text *text)
{
	const char *in[3] = { network, target, flow };
	char *out[3];

	memset(c, 0, sizeof(*c));
	text_init(&c->text);
	text_addn(&c->text, text->buf != NULL ? text->buf : "", text->len);
	xstrdupv(out, in, 3);
	c->network = out[0];
	c->target = out[1];
	c->flow = out[2];
	c->private_ = private_;
}

/*
 * Whether a private message is one that outbox_load() sent again (same
 * network, target and text) and no message has matched yet; marks it
 * matched.
 */
static int
resent_match(struct outbox *outbox, const char *network, const char *target,
    const struct text *text)
{
	for (int i = 0; i < outbox->nresent; i++) {
		struct captured *r = &outbox->resent[i];

		if (r->private_ && r->text.len == text->len &&
		    strcmp(r->network, network) == 0 &&
		    strcmp(r->target, target) == 0 &&
		    memcmp(r->text.buf, text->buf, text->len) == 0) {
			r->private_ = 0;
			return 1;
		}
	}
	return 0;
}

void
outbox_skip_resent(struct outbox *outbox, int on)
{
	outbox->skip_resent = on;
}

void
outbox_send(struct outbox *outbox, const char *network, const char *target,
    int private_, const char *flow, const struct text *text)
{
	outbox_send_until(outbox, network, target, private_, flow, text, 0);
}

void
outbox_send_until(struct outbox *outbox, const char *network,
    const char *target, int private_, const char *flow,
    const struct text *text, uint64_t expires)
{
	struct captured *c;

	if (outbox->skip_resent && private_ && text->len > 0 &&
	    resent_match(outbox, network, target, text)) {
		log_debug("%s: a line to %s that went out again at the start "
		    "is not sent a second time", network, target);
		return;
	}
	if (outbox->depth == 0) {
		struct captured now = {
			.network = (char *)network, .target = (char *)target,
			.flow = (char *)flow, .private_ = private_,
			.text = *text, .expires = expires,
		};

		send_one(outbox, &now, 0);
		return;
	}
	xarray_grow((void **)&outbox->msgs, &outbox->cap, outbox->nmsgs + 1,
	    sizeof(*outbox->msgs));
	c = &outbox->msgs[outbox->nmsgs];
	captured_copy(c, network, target, private_, flow, text);
	c->expires = expires;
	outbox->nmsgs++;
}

void
outbox_sent(struct outbox *outbox, uint64_t id)
{
	if (id == 0)
		return;
	/* Reports come mostly in order: the first is usually the one. */
	for (int i = 0; i < outbox->nunsent; i++) {
		if (outbox->unsent[i].id != id)
			continue;
		memmove(&outbox->unsent[i], &outbox->unsent[i + 1],
		    (size_t)(outbox->nunsent - i - 1) *
		    sizeof(*outbox->unsent));
		outbox->nunsent--;
		break;
	}
	if (store_outbox_sent(outbox->store, (int64_t)id) != 0)
		log_error("out of memory: message %llu may be sent again "
		    "after a restart", (unsigned long long)id);
}

uint64_t
outbox_flow_unsent(const struct outbox *outbox, const char *network,
    const char *flow)
{
	uint64_t f = flow_key(network, flow), last = 0;

	for (int i = 0; i < outbox->nunsent; i++)
		if (outbox->unsent[i].flow == f && outbox->unsent[i].id > last)
			last = outbox->unsent[i].id;
	return last;
}

int
outbox_flow_sent(const struct outbox *outbox, const char *network,
    const char *flow, uint64_t mark)
{
	uint64_t f = flow_key(network, flow);

	for (int i = 0; i < outbox->nunsent; i++)
		if (outbox->unsent[i].flow == f && outbox->unsent[i].id <= mark)
			return 0;
	return 1;
}

/*
 * Rows older than this are not sent after a restart: a move of long ago
 * would only confuse, and the resume line says where each game stands.
 */
#define OUTBOX_STALE_S 3600

static void
load_one(const struct store_message *msg, void *arg)
{
	struct outbox *outbox = arg;
	struct captured c = {
		.network = (char *)msg->network, .target = (char *)msg->target,
		.flow = (char *)msg->flow, .private_ = msg->private_,
	};

	if (msg->age > OUTBOX_STALE_S) {
		outbox->stale++;
		outbox_sent(outbox, (uint64_t)msg->id);
		return;
	}
	text_init(&c.text);
	text_add(&c.text, msg->body);
	send_one(outbox, &c, (uint64_t)msg->id);
	if (msg->private_) {
		xarray_grow((void **)&outbox->resent, &outbox->resent_cap,
		    outbox->nresent + 1, sizeof(*outbox->resent));
		captured_copy(&outbox->resent[outbox->nresent++], c.network,
		    c.target, 1, c.flow, &c.text);
	}
	text_finish(&c.text);
}

int
outbox_load(struct outbox *outbox)
{
	int n;

	outbox->stale = 0;
	n = store_each_outbox(outbox->store, load_one, outbox);
	if (outbox->stale > 0)
		log_warn("store: %d messages older than an hour were not sent "
		    "after the restart; the tables are told where their games "
		    "stand", outbox->stale);
	if (n > 0)
		log_info("store: %d message%s not sent before the restart "
		    "go%s out first", n, n == 1 ? "" : "s", n == 1 ? "es" : "");
	return n;
}
