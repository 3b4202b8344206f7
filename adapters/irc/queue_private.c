/*
 * queue_private.c - the private lines of the IRC adapter's outgoing queue
 * (queue.h): which nick a PRIVMSG or NOTICE goes to, how many are in
 * flight to one, and sending those still waiting to a nick's new name.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "queue.h"
#include "queue_int.h"
#include "xmalloc.h"

/* The nick a PRIVMSG or NOTICE line goes to, into out; -1: not one. */
static int
private_target(const char *line, char *out, size_t outlen)
{
	size_t cmdlen = strcspn(line, " "), tlen;
	const char *target;

	if (!((cmdlen == 7 && strncmp(line, "PRIVMSG", 7) == 0) ||
	    (cmdlen == 6 && strncmp(line, "NOTICE", 6) == 0)) ||
	    line[cmdlen] != ' ')
		return -1;
	target = line + cmdlen + 1;
	tlen = strcspn(target, " ");
	if (tlen >= outlen)
		return -1;
	memcpy(out, target, tlen);
	out[tlen] = '\0';
	return 0;
}

size_t
irc_queue_inflight_to(const struct irc_queue *q, enum irc_casemap map,
    const char *nick)
{
	char target[IRC_LINE_MAX];
	size_t n = 0;

	for (const struct qline *l = q->fly_head; l != NULL; l = l->next)
		if (l->ident != NULL && private_target(l->line, target,
		    sizeof(target)) == 0 && irc_casecmp(map, target, nick) == 0)
			n++;
	return n;
}

int
irc_queue_retarget(struct irc_queue *q, enum irc_casemap map,
    const char *old, const char *now, size_t max)
{
	size_t nowlen = strlen(now);
	int changed = 0;

	for (int i = 0; i < q->nflows; i++) {
		struct qflow *f = q->flows[i];
		struct qline *prev = NULL;

		for (struct qline *l = f->head; l != NULL;
		    prev = l, l = l->next) {
			const char *cmd = l->line, *rest;
			char nick[IRC_LINE_MAX];
			size_t cmdlen, restlen, len, ilen;
			struct qline *n;

			if (l->ident == NULL || private_target(cmd, nick,
			    sizeof(nick)) != 0 || irc_casecmp(map, nick, old) != 0)
				continue;
			cmdlen = strcspn(cmd, " ");
			rest = cmd + cmdlen + 1 + strlen(nick);
			if (strncmp(rest, " :", 2) != 0)
				continue;
			restlen = strlen(rest);
			len = cmdlen + 1 + nowlen + restlen;
			if (len > max && max > cmdlen + 1 + nowlen + 2)
				restlen = irc_utf8_cut(rest, max - cmdlen - 1 -
				    nowlen);
			else if (len > max)
				continue;
			ilen = strlen(l->ident) + 1;
			n = xmalloc(sizeof(*n) + cmdlen + 1 + nowlen +
			    restlen + 1 + ilen);
			*n = *l;
			len = 0;
			memcpy(n->line, cmd, cmdlen + 1);
			len += cmdlen + 1;
			memcpy(n->line + len, now, nowlen);
			len += nowlen;
			memcpy(n->line + len, rest, restlen);
			len += restlen;
			n->line[len] = '\0';
			memcpy(n->line + len + 1, l->ident, ilen);
			n->ident = n->line + len + 1;
			if (prev != NULL)
				prev->next = n;
			else
				f->head = n;
			if (f->tail == l)
				f->tail = n;
			free(l);
			l = n;
			changed++;
		}
	}
	return changed;
}

