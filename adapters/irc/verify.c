/*
 * verify.c - private lines reach only the holder of a seat (issue
 * 15.1).  Before a private line leaves for a nick, the adapter must know
 * that the nick's holder now is the seat's identity; channel lines wait
 * until the bot is in their channel.  See irc_line_gate().
 */
#include <stdio.h>
#include <string.h>

#include "irc_int.h"
#include "log.h"
#include "xmalloc.h"

/* Glimpses: who held a nick outside our channels, and when. */

static struct glimpse *
glimpse_find(struct irc *irc, const char *nick)
{
	for (int i = 0; i < irc->nglimpses; i++)
		if (irc_nick_eq(irc, irc->glimpses[i].nick, nick))
			return &irc->glimpses[i];
	return NULL;
}

void
irc_glimpse_forget(struct irc *irc, const char *nick)
{
	struct glimpse *g = glimpse_find(irc, nick);

	if (g != NULL)
		*g = irc->glimpses[--irc->nglimpses];
}

/* Remembers who holds nick, learnt at mark; account NULL: not told. */
void
irc_glimpse_note(struct irc *irc, const char *nick, const char *user,
    const char *host, const char *account, int absent, uint64_t mark)
{
	struct glimpse *g = glimpse_find(irc, nick);

	if (strlen(nick) >= sizeof(g->nick))
		return;
	if (g == NULL && irc->nglimpses < GLIMPSES_MAX) {
		g = &irc->glimpses[irc->nglimpses++];
	} else if (g == NULL) {
		/* Full: the oldest makes room. */
		g = &irc->glimpses[0];
		for (int i = 1; i < irc->nglimpses; i++)
			if (irc->glimpses[i].mark < g->mark)
				g = &irc->glimpses[i];
	}
	memset(g, 0, sizeof(*g));
	snprintf(g->nick, sizeof(g->nick), "%s", nick);
	snprintf(g->user, sizeof(g->user), "%s", user != NULL ? user : "");
	snprintf(g->host, sizeof(g->host), "%s", host != NULL ? host : "");
	if (account != NULL) {
		g->account_known = 1;
		if (irc_account_known(account))
			snprintf(g->account, sizeof(g->account), "%s",
			    account);
	}
	g->absent = absent;
	g->mark = mark;
}

/* Renames. */

static struct rename *
rename_find(struct irc *irc, const char *nick, const char *user,
    const char *host)
{
	for (int i = 0; i < irc->nrenames; i++) {
		struct rename *r = &irc->renames[i];

		if (irc_nick_eq(irc, r->nick, nick) &&
		    strcmp(r->user, user) == 0 && strcmp(r->host, host) == 0)
			return r;
	}
	return NULL;
}

static void
rename_remove(struct irc *irc, struct rename *r)
{
	int i = (int)(r - irc->renames);

	memmove(r, r + 1, (size_t)(irc->nrenames - i - 1) * sizeof(*r));
	irc->nrenames--;
}

void
irc_rename_note(struct irc *irc, const char *old, const char *user,
    const char *host, const char *now)
{
	struct rename *r;

	if (user == NULL || host == NULL || user[0] == '\0' ||
	    host[0] == '\0' || strlen(old) >= sizeof(r->nick) ||
	    strlen(now) >= sizeof(r->now) || strlen(user) >= sizeof(r->user) ||
	    strlen(host) >= sizeof(r->host))
		return;
	/* Whoever they were before, they hold now again: no trail there. */
	if ((r = rename_find(irc, now, user, host)) != NULL)
		rename_remove(irc, r);
	if ((r = rename_find(irc, old, user, host)) != NULL)
		rename_remove(irc, r);
	if (irc->nrenames == RENAMES_MAX)
		rename_remove(irc, &irc->renames[0]);
	r = &irc->renames[irc->nrenames++];
	snprintf(r->nick, sizeof(r->nick), "%s", old);
	snprintf(r->user, sizeof(r->user), "%s", user);
	snprintf(r->host, sizeof(r->host), "%s", host);
	snprintf(r->now, sizeof(r->now), "%s", now);
}

const char *
irc_rename_follow(struct irc *irc, const char *nick, const char *user,
    const char *host)
{
	const char *at = nick;
	struct irc_user *u;
	struct rename *r;

	/* irc_rename_note() leaves no loops; the bound is a second guard. */
	for (int i = 0; i < RENAMES_MAX; i++) {
		u = irc_user_find(irc, at);
		if (u != NULL && u->channels > 0 && u->user != NULL &&
		    u->host != NULL && strcmp(u->user, user) == 0 &&
		    strcmp(u->host, host) == 0)
			break;
		if ((r = rename_find(irc, at, user, host)) == NULL)
			break;
		at = r->now;
	}
	if (at != nick)
		log_info("irc %s: private lines for %s!%s@%s go to %s: they "
		    "changed their nick", irc->network, nick, user, host, at);
	return at;
}

/* Verifications. */

static struct verify *
verify_find(struct irc *irc, const char *nick)
{
	for (int i = 0; i < irc->nverifies; i++)
		if (irc_nick_eq(irc, irc->verifies[i].nick, nick))
			return &irc->verifies[i];
	return NULL;
}

static void
verify_remove(struct irc *irc, struct verify *v)
{
	*v = irc->verifies[--irc->nverifies];
}

/*
 * nick is a member of a channel whose WHO is on its way: its answer will
 * tell nick's user@host as well as a USERHOST would, for no extra line
 * (ngircd holds a client back a second for each).
 */
static int
awaits_who(struct irc *irc, const char *nick)
{
	struct irc_user *u = irc_user_find(irc, nick);
	uint64_t now = irc_now_ms(irc);

	if (u == NULL || u->channels == 0)
		return 0;
	for (int i = 0; i < irc->nchans; i++) {
		struct irc_chan *c = irc->chans[i];

		if (c->who_at != 0 && now - c->who_at < VERIFY_TIMEOUT_MS &&
		    irc_chan_has(c, u))
			return 1;
	}
	return 0;
}

/* Sends a USERHOST for every verification that waits for one. */
static void
userhost_send(struct loop *loop, uint64_t id, void *arg)
{
	struct irc *irc = arg;
	char line[IRC_LINE_MAX];
	uint64_t mark = 0;
	size_t len;
	int n;

	(void)loop;
	(void)id;
	irc->userhost_timer = 0;
	irc_enter(irc);
	do {
		len = 0;
		n = 0;
		line[0] = '\0';
		for (int i = 0; i < irc->nverifies && n < USERHOST_MAX; i++) {
			struct verify *v = &irc->verifies[i];

			if (!v->userhost || v->batch != 0 ||
			    awaits_who(irc, v->nick))
				continue;
			if (n == 0) {
				irc->userhost_sent++;
				mark = irc_mark(irc);
			}
			v->batch = irc->userhost_sent;
			v->mark = mark;
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " %s", v->nick);
			n++;
		}
		if (n > 0)
			irc_queue_line(irc, IRC_CLASS_CONTROL, "USERHOST%s",
			    line);
	} while (n == USERHOST_MAX);
	irc_leave(irc);
}

/*
 * Asks the server who holds nick now: the lines for nick wait for the
 * answer.  For a seat known by its account a WHO (WHOX tells the
 * account); otherwise USERHOST, sent after the current event with every
 * other nick asked meanwhile (a deal asks for each player at once).
 */
static void
verify_ask(struct irc *irc, const char *nick, int by_account)
{
	struct verify *v = verify_find(irc, nick);

	if (v != NULL && irc_now_ms(irc) - v->at < VERIFY_TIMEOUT_MS)
		return;
	if (v == NULL) {
		if (strlen(nick) >= sizeof(v->nick))
			return;
		xarray_grow((void **)&irc->verifies, &irc->verifies_cap,
		    irc->nverifies + 1, sizeof(*irc->verifies));
		v = &irc->verifies[irc->nverifies++];
		memset(v, 0, sizeof(*v));
		snprintf(v->nick, sizeof(v->nick), "%s", nick);
	}
	v->at = irc_now_ms(irc);
	v->answered = 0;
	v->userhost = !by_account;
	v->batch = 0;
	/* A USERHOST's mark is taken as it is queued (userhost_send()). */
	v->mark = v->userhost ? 0 : irc_mark(irc);
	log_debug("irc %s: verifying who holds %s before private lines go "
	    "there", irc->network, nick);
	if (v->userhost) {
		if (irc->userhost_timer == 0)
			irc->userhost_timer = loop_timer(irc->loop, 0,
			    userhost_send, irc);
	} else if (irc->is.whox) {
		irc_queue_line(irc, IRC_CLASS_CONTROL, "WHO %s %%tuhna,"
		    VERIFY_TOKEN, nick);
	} else {
		irc_queue_line(irc, IRC_CLASS_CONTROL, "WHO %s", nick);
	}
}

/* A reply to a verification: nick is held by user@host (account). */
void
irc_verify_reply(struct irc *irc, const char *nick, const char *user,
    const char *host, const char *account)
{
	struct verify *v = verify_find(irc, nick);

	if (v == NULL)
		return;
	v->answered = 1;
	/*
	 * The answer tells of the messages queued before the question, not
	 * of those queued while it was on its way: by then the nick may have
	 * changed hands again.
	 */
	irc_glimpse_note(irc, nick, user, host, account, 0, v->mark);
}

/* The end of a WHO: a verification without a reply found nobody. */
void
irc_verify_end(struct irc *irc, const char *mask)
{
	struct verify *v = verify_find(irc, mask);
	struct irc_chan *c = irc_chan_find(irc, mask);
	struct irc_user *u;
	int more = 0;

	if (v != NULL) {
		if (!v->answered)
			irc_glimpse_note(irc, mask, NULL, NULL, NULL, 1,
			    v->mark);
		verify_remove(irc, v);
	}
	/*
	 * A channel's WHO told its members' masks: verifications that
	 * waited for it are done, and the rest need a USERHOST after all.
	 */
	if (c != NULL && c->who_at != 0) {
		c->who_at = 0;
		/* Who came and went while we were not in the channel. */
		irc_notify_members(irc, c);
		for (int i = 0; i < irc->nverifies;) {
			v = &irc->verifies[i];
			u = irc_user_find(irc, v->nick);
			if (v->userhost && v->batch == 0 && u != NULL &&
			    u->user != NULL && u->host != NULL) {
				verify_remove(irc, v);
				continue;
			}
			more |= v->userhost && v->batch == 0;
			i++;
		}
		if (more && irc->userhost_timer == 0)
			irc->userhost_timer = loop_timer(irc->loop, 0,
			    userhost_send, irc);
	}
	if (irc->queue != NULL)
		irc_queue_flush(irc->queue);
}

void
irc_userhost_reply(struct irc *irc, const char *list)
{
	char entry[512], *eq, *at, *user;
	struct irc_user *u;
	struct verify *asked;
	size_t n;
	uint64_t batch = ++irc->userhost_answered;

	while (*list != '\0') {
		list += strspn(list, " ");
		n = strcspn(list, " ");
		if (n == 0)
			break;
		if (n < sizeof(entry)) {
			memcpy(entry, list, n);
			entry[n] = '\0';
			eq = strchr(entry, '=');
			at = strrchr(entry, '@');
			if (eq != NULL && at != NULL && at > eq) {
				*eq = *at = '\0';
				if (eq > entry && eq[-1] == '*')
					eq[-1] = '\0';
				user = eq + 1 + (eq[1] == '+' || eq[1] == '-');
				u = irc_user_find(irc, entry);
				asked = verify_find(irc, entry);
				if (u != NULL && !irc_is_self(irc, entry))
					irc_user_learn(irc, u, user, at + 1,
					    NULL);
				/* Not the answer to a question asked again. */
				if (asked == NULL || !asked->userhost ||
				    asked->batch == batch)
					irc_verify_reply(irc, entry, user,
					    at + 1, NULL);
			}
		}
		list += n;
	}
	/* The nicks of this USERHOST left unanswered are nobody's. */
	for (int i = 0; i < irc->nverifies;) {
		struct verify *v = &irc->verifies[i];

		if (!v->userhost || v->batch == 0 || v->batch > batch) {
			i++;
			continue;
		}
		if (!v->answered)
			irc_glimpse_note(irc, v->nick, NULL, NULL, NULL, 1,
			    v->mark);
		verify_remove(irc, v);
	}
	if (irc->queue != NULL)
		irc_queue_flush(irc->queue);
}

/*
 * May private lines for ident (a seat's identity: "account:NAME" or
 * nick!user@host), of the message marked queued, go to nick now?  Only
 * when the adapter knows who holds nick: a member of a channel we share
 * (whose QUIT or NICK we would see), or, for someone outside our
 * channels, who spoke to us since the message was queued or answered a
 * question asked since (their QUIT would go unseen, so older knowledge
 * proves nothing).  Otherwise the lines wait while we ask.  Someone else:
 * never.
 */
static int
holder_gate(struct irc *irc, const char *nick, const char *ident,
    uint64_t queued)
{
	struct irc_user *u = irc_user_find(irc, nick);
	const struct glimpse *g = NULL;
	const char *user, *host, *account;
	int account_known, is_account = strncmp(ident, "account:", 8) == 0;
	struct origin want;

	if (u != NULL && u->channels > 0) {
		user = u->user;
		host = u->host;
		account = u->account;
		account_known = u->account_known;
	} else if ((g = glimpse_find(irc, nick)) != NULL && g->mark > queued) {
		if (g->absent) {
			log_info("irc %s: not sending private lines for %s to "
			    "%s: nobody holds that nick", irc->network, ident,
			    nick);
			return IRC_GATE_DROP;
		}
		user = g->user;
		host = g->host;
		account = g->account[0] != '\0' ? g->account : NULL;
		account_known = g->account_known;
	} else {
		verify_ask(irc, nick, is_account);
		return IRC_GATE_WAIT;
	}
	if (is_account) {
		if (account != NULL && irc_casecmp(irc->is.casemap, account,
		    ident + 8) == 0)
			return IRC_GATE_GO;
		if (account != NULL || account_known)
			goto other;
	} else if (irc_origin_split(ident, &want) == 0 && user != NULL &&
	    host != NULL && user[0] != '\0' && host[0] != '\0') {
		if (strcmp(user, want.user) == 0 &&
		    strcmp(host, want.host) == 0)
			return IRC_GATE_GO;
		goto other;
	}
	/*
	 * A member whose user@host or account we do not know yet: ask once;
	 * an answer that still does not tell (no account from a plain WHO)
	 * cannot prove anything.
	 */
	if (verify_find(irc, nick) != NULL)
		return IRC_GATE_WAIT;
	if (g == NULL && ((g = glimpse_find(irc, nick)) == NULL ||
	    g->mark <= queued)) {
		verify_ask(irc, nick, is_account);
		return IRC_GATE_WAIT;
	}
	log_warn("irc %s: not sending private lines for %s to %s: the "
	    "server does not tell who holds it", irc->network, ident, nick);
	return IRC_GATE_DROP;
other:
	log_warn("irc %s: not sending private lines for %s to %s: that nick "
	    "is held by %s!%s@%s%s%s", irc->network, ident, nick, nick,
	    user != NULL ? user : "*", host != NULL ? host : "*",
	    account != NULL ? " account " : "", account != NULL ? account : "");
	return IRC_GATE_DROP;
}

/* The queue's gate: may this line of a channel or private message go? */
int
irc_line_gate(const char *line, const char *ident, uint64_t queued, void *arg)
{
	struct irc *irc = arg;
	const char *target = strchr(line, ' ');
	char name[IRC_LINE_MAX];
	size_t n;
	struct irc_chan *c;

	if (target == NULL)
		return IRC_GATE_GO;
	/* Our previous connection may still be talking (irc_reclaim_start). */
	if (irc->ghost_until != 0) {
		if (irc_now_ms(irc) < irc->ghost_until)
			return IRC_GATE_WAIT;
		log_info("irc %s: %s is still taken; speaking as %s",
		    irc->network, irc->cfg.nick, irc->nick);
		irc->ghost_until = 0;
	}
	target++;
	n = strcspn(target, " ");
	if (n >= sizeof(name))
		return IRC_GATE_DROP;
	memcpy(name, target, n);
	name[n] = '\0';
	if (ident != NULL)
		return holder_gate(irc, name, ident, queued);
	if ((c = irc_chan_find(irc, name)) != NULL && c->joined)
		return IRC_GATE_GO;
	if (c != NULL && c->wanted)
		return IRC_GATE_WAIT;
	log_warn("irc %s: dropping lines for %s: the bot is not in it",
	    irc->network, name);
	return IRC_GATE_DROP;
}

