/*
 * people.c - the people the bot shares channels with, and those
 * channels: who they are (nick!user@host, the services account when
 * known), which the core hears of as identities (struct user), so that
 * seats follow people through nick and account changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irc_int.h"
#include "log.h"
#include "loop.h"
#include "store.h"
#include "xmalloc.h"

int
irc_nick_eq(const struct irc *irc, const char *a, const char *b)
{
	return irc_casecmp(irc->is.casemap, a, b) == 0;
}

int
irc_is_self(const struct irc *irc, const char *nick)
{
	return irc_nick_eq(irc, nick, irc->nick);
}

struct irc_user *
irc_user_find(struct irc *irc, const char *nick)
{
	for (int i = 0; i < irc->nusers; i++)
		if (irc_nick_eq(irc, irc->users[i]->nick, nick))
			return irc->users[i];
	return NULL;
}

void
irc_user_free(struct irc_user *u)
{
	free(u->nick);
	free(u->user);
	free(u->host);
	free(u->account);
	free(u);
}

struct irc_user *
irc_user_get(struct irc *irc, const char *nick)
{
	struct irc_user *u = irc_user_find(irc, nick);

	if (u != NULL)
		return u;
	xarray_grow((void **)&irc->users, &irc->users_cap, irc->nusers + 1,
	    sizeof(*irc->users));
	u = xcalloc(1, sizeof(*u));
	u->nick = xstrdup(nick);
	irc->users[irc->nusers++] = u;
	return u;
}

/* Forgets u once it shares no channel with us. */
void
irc_user_release(struct irc *irc, struct irc_user *u)
{
	if (u->channels > 0)
		return;
	for (int i = 0; i < irc->nusers; i++) {
		if (irc->users[i] == u) {
			irc->users[i] = irc->users[--irc->nusers];
			break;
		}
	}
	irc_user_free(u);
}

/* Replaces *field with s (NULL or "" clears it); 1 when it changed. */
int
irc_set_field(char **field, const char *s)
{
	char *copy;

	if (s != NULL && s[0] == '\0')
		s = NULL;
	if (s == NULL ? *field == NULL : *field != NULL &&
	    strcmp(*field, s) == 0)
		return 0;
	copy = s != NULL ? xstrdup(s) : NULL;
	free(*field);
	*field = copy;
	return 1;
}

/* The store key of the casemap identities fold by. */
static void
casemap_key(const struct irc *irc, char *key, size_t keylen)
{
	snprintf(key, keylen, "irc:%s:casemap", irc->network);
}

void
irc_casemap_recall(struct irc *irc)
{
	char key[256], *value;

	irc->id_casemap = IRC_CASEMAP_RFC1459;
	if (irc->adapter->store == NULL)
		return;
	casemap_key(irc, key, sizeof(key));
	if ((value = store_kv_get(irc->adapter->store, key)) != NULL)
		irc->id_casemap = irc_casemap_parse(value);
	free(value);
}

void
irc_casemap_learn(struct irc *irc)
{
	char key[256];

	if (irc->is.casemap == irc->id_casemap)
		return;
	log_info("irc %s: the server folds nicks by %s (was %s): identities "
	    "follow it", irc->network, irc_casemap_name(irc->is.casemap),
	    irc_casemap_name(irc->id_casemap));
	irc->id_casemap = irc->is.casemap;
	if (irc->adapter->store == NULL)
		return;
	casemap_key(irc, key, sizeof(key));
	if (store_kv_set(irc->adapter->store, key,
	    irc_casemap_name(irc->id_casemap)) != 0)
		log_warn("irc %s: cannot store the server's casemap; seats "
		    "of nicks with []\\~ may not be recognised after a "
		    "restart", irc->network);
}

int
irc_user_id(const struct irc *irc, const struct irc_user *u, char *out,
    size_t outlen)
{
	return irc_identity(out, outlen, irc->id_casemap, u->nick, u->user,
	    u->host, u->account);
}

/*
 * The struct user of u; id and mask are buffers of the caller.  guest
 * follows the network's "identity": with "account", a person without a
 * services account may not take a seat.
 */
int
irc_user_struct(const struct irc *irc, const struct irc_user *u, char *id,
    size_t idlen, char *mask, size_t masklen, struct user *out)
{
	if (irc_user_id(irc, u, id, idlen) != 0)
		return -1;
	snprintf(mask, masklen, "%s!%s@%s", u->nick, u->user != NULL ?
	    u->user : "*", u->host != NULL ? u->host : "*");
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->name = u->nick;
	out->mask = mask;
	out->guest = irc->cfg.identity_account && u->account == NULL;
	return 0;
}

/*
 * Tells the core when u's id (old, NULL when it had none) or name changed:
 * seats follow the person.
 */
void
irc_notify_rename(struct irc *irc, const struct irc_user *u, const char *old,
    int renamed)
{
	char id[512], mask[512];
	struct user now = { 0 };

	if (old == NULL || !irc_alive(irc) ||
	    irc_user_struct(irc, u, id, sizeof(id), mask, sizeof(mask),
	    &now) != 0)
		return;
	if (strcmp(old, id) == 0 && !renamed)
		return;
	adapter_rename(irc->adapter, old, &now);
}

/*
 * Tells the core who is in c, once its WHO told every member's user@host
 * and account: the ids are then the ones their messages carry.  A list
 * with a member whose id may still change (the server tells accounts,
 * but not this member's) is not told at all: someone who is here must
 * never be counted gone, which would let their seat change hands.
 */
void
irc_notify_members(struct irc *irc, const struct irc_chan *c)
{
	int accounts = irc->is.whox || (irc->caps & (CAP_EXTENDED_JOIN |
	    CAP_ACCOUNT_NOTIFY | CAP_ACCOUNT_TAG));
	struct user *users;
	char (*ids)[512], (*masks)[512];
	size_t n = 0;

	if (!irc_alive(irc) || !c->joined)
		return;
	users = xcalloc((size_t)c->nmembers + 1, sizeof(*users));
	ids = xcalloc((size_t)c->nmembers + 1, sizeof(*ids));
	masks = xcalloc((size_t)c->nmembers + 1, sizeof(*masks));
	for (int i = 0; i < c->nmembers; i++) {
		const struct irc_user *u = c->members[i];

		if ((accounts && !u->account_known) ||
		    irc_user_struct(irc, u, ids[n], sizeof(ids[n]), masks[n],
		    sizeof(masks[n]), &users[n]) != 0) {
			log_debug("irc %s: %s's identity in %s is not known "
			    "yet: its members are not told", irc->network,
			    u->nick, c->name);
			n = 0;
			break;
		}
		n++;
	}
	if (n > 0 || c->nmembers == 0)
		adapter_members(irc->adapter, c->name, users, n);
	free(masks);
	free(ids);
	free(users);
}

/*
 * Learns user@host (from a prefix or a WHO reply) and, when account is not
 * NULL, the account ("*" and "0": none) of u; tells the core if its id
 * changed.
 */
void
irc_user_learn(struct irc *irc, struct irc_user *u, const char *user,
    const char *host, const char *account)
{
	char old[512];
	int had = irc_user_id(irc, u, old, sizeof(old)) == 0;

	if (user != NULL && user[0] != '\0')
		irc_set_field(&u->user, user);
	if (host != NULL && host[0] != '\0')
		irc_set_field(&u->host, host);
	if (account != NULL) {
		irc_set_field(&u->account, irc_account_known(account) ?
		    account : NULL);
		u->account_known = 1;
	}
	irc_notify_rename(irc, u, had ? old : NULL, 0);
}

/* Channels. */

struct irc_chan *
irc_chan_find(struct irc *irc, const char *name)
{
	for (int i = 0; i < irc->nchans; i++)
		if (irc_nick_eq(irc, irc->chans[i]->name, name))
			return irc->chans[i];
	return NULL;
}

struct irc_chan *
irc_chan_get(struct irc *irc, const char *name)
{
	struct irc_chan *c = irc_chan_find(irc, name);

	if (c != NULL)
		return c;
	xarray_grow((void **)&irc->chans, &irc->chans_cap, irc->nchans + 1,
	    sizeof(*irc->chans));
	c = xcalloc(1, sizeof(*c));
	c->name = xstrdup(name);
	c->irc = irc;
	irc->chans[irc->nchans++] = c;
	return c;
}

int
irc_chan_has(const struct irc_chan *c, const struct irc_user *u)
{
	for (int i = 0; i < c->nmembers; i++)
		if (c->members[i] == u)
			return 1;
	return 0;
}

void
irc_chan_add(struct irc_chan *c, struct irc_user *u)
{
	if (irc_chan_has(c, u))
		return;
	xarray_grow((void **)&c->members, &c->members_cap, c->nmembers + 1,
	    sizeof(*c->members));
	c->members[c->nmembers++] = u;
	u->channels++;
}

/* Takes u off the members of c; 1 when it was one. */
static int
chan_unlink(struct irc_chan *c, struct irc_user *u)
{
	for (int i = 0; i < c->nmembers; i++) {
		if (c->members[i] == u) {
			c->members[i] = c->members[--c->nmembers];
			u->channels--;
			return 1;
		}
	}
	return 0;
}

void
irc_chan_remove(struct irc *irc, struct irc_chan *c, struct irc_user *u)
{
	if (chan_unlink(c, u))
		irc_user_release(irc, u);
}

/* u quit: off every channel first (the release frees u), then gone. */
void
irc_user_quit(struct irc *irc, struct irc_user *u)
{
	for (int i = 0; i < irc->nchans; i++)
		chan_unlink(irc->chans[i], u);
	u->channels = 0;
	irc_user_release(irc, u);
}

void
irc_chan_clear(struct irc *irc, struct irc_chan *c)
{
	while (c->nmembers > 0) {
		struct irc_user *u = c->members[--c->nmembers];

		u->channels--;
		irc_user_release(irc, u);
	}
}

/* Forgets a channel we no longer want nor are in. */
void
irc_chan_drop(struct irc *irc, struct irc_chan *c)
{
	irc_chan_clear(irc, c);
	if (irc->loop != NULL)
		loop_cancel(irc->loop, c->rejoin_timer);
	for (int i = 0; i < irc->nchans; i++) {
		if (irc->chans[i] == c) {
			irc->chans[i] = irc->chans[--irc->nchans];
			break;
		}
	}
	free(c->members);
	free(c->name);
	free(c);
}

int
irc_origin_split(const char *origin, struct origin *o)
{
	if (origin == NULL)
		return -1;
	return irc_mask_split(origin, o->nick, sizeof(o->nick), o->user,
	    sizeof(o->user), o->host, sizeof(o->host));
}

/* Joining. */

void
irc_join_wanted(struct irc *irc)
{
	char line[400];
	size_t len = 0;

	for (int i = 0; i < irc->nchans; i++) {
		struct irc_chan *c = irc->chans[i];
		size_t n = strlen(c->name);

		if (!c->wanted || c->joined || c->rejoin_timer != 0)
			continue;
		if (len > 0 && len + 1 + n >= sizeof(line)) {
			irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", line);
			len = 0;
		}
		if (n >= sizeof(line))
			continue;
		if (len > 0)
			line[len++] = ',';
		memcpy(line + len, c->name, n + 1);
		len += n;
	}
	if (len > 0)
		irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", line);
}

static void
rejoin_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc_chan *c = arg;
	struct irc *irc = c->irc;

	(void)loop;
	(void)id;
	c->rejoin_timer = 0;
	if (c->wanted && !c->joined && irc->phase == PHASE_READY)
		irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", c->name);
}

/* Tries to join c again later, waiting longer after each failure. */
void
irc_rejoin_later(struct irc *irc, struct irc_chan *c, uint64_t base)
{
	uint64_t delay = base;

	for (int i = 0; i < c->retries && delay < REJOIN_MAX_MS; i++)
		delay *= 2;
	if (delay > REJOIN_MAX_MS)
		delay = REJOIN_MAX_MS;
	c->retries++;
	loop_cancel(irc->loop, c->rejoin_timer);
	c->rejoin_timer = loop_timer(irc->loop, delay, rejoin_timer, c);
	log_info("irc %s: will try to join %s again in %llu s",
	    irc->network, c->name,
	    (unsigned long long)(delay / 1000));
}
