/*
 * proto.h - the pure protocol helpers of the Matrix adapter (proto.c):
 * user ids, URLs, transaction ids, message contents, m.direct
 * contents and who may invite the bot.  Nothing here does I/O, so
 * tests/test_matrix.c checks all of it directly.
 *
 * Ownership: functions that take a json_t borrow it; functions that return
 * one give the caller a new reference.
 */
#ifndef STICHBOT_MATRIX_PROTO_H
#define STICHBOT_MATRIX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "text.h"

/* The client-server API prefix every request path starts with. */
#define MX_API "/_matrix/client/v3"

/*
 * 1 when s looks like a Matrix user id, "@localpart:server", in valid
 * UTF-8 without spaces or control characters.
 */
int mx_user_id_valid(const char *s);
/* The server name of a user or room id (after the first ':'), or "". */
const char *mx_server_name(const char *id);

/*
 * Appends s to out with every byte but ALPHA DIGIT - . _ ~ percent-encoded,
 * so room ids, aliases and user ids are single path segments.
 */
void mx_escape(struct text *out, const char *s);
/*
 * Writes base followed by path into out (cleared first), where each "%s" in
 * path is replaced by the next argument, percent-encoded.  No other
 * conversions exist.
 */
void mx_url(struct text *out, const char *base, const char *path, ...);
/* Appends "?key=value" or "&key=value", the value percent-encoded. */
void mx_url_param(struct text *out, const char *key, const char *value);

/*
 * A transaction id for a send: unique for a process start (epoch) and a
 * counter, made of URL-safe characters only.
 */
void mx_txn_id(char *out, size_t outlen, uint64_t epoch, uint64_t counter);
/*
 * The transaction id of the core's outbox row id (struct send_info):
 * the same for every attempt, in every process on the same store, so a
 * row sent again after a restart is recognised by the homeserver as the
 * transaction it has (transaction ids are scoped to the device).  prefix
 * is random per store, so a fresh store on the same device cannot have
 * its messages taken for old ones.
 */
void mx_txn_id_outbox(char *out, size_t outlen, const char *prefix,
    uint64_t id);
/*
 * The transaction id of a notice said at most once in a room (leaving a
 * direct room that is not private any more): a function of the room id
 * and what the notice is (kind), so that a restart which says it again
 * (killed before the bot left) is recognised by the homeserver.
 */
void mx_txn_id_notice(char *out, size_t outlen, const char *prefix,
    const char *kind, const char *room_id);


/* The user ids mentioned in t (TEXT_MENTION marks), once each, or NULL. */
json_t *mx_mentions(const struct text *t);
/*
 * The content of an m.room.message of msgtype ("m.notice") for t: the
 * plain body, the HTML formatted_body, and m.mentions when t mentions
 * someone.  NULL when jansson refuses the text (not UTF-8, see json.h).
 */
json_t *mx_message_content(const struct text *t, const char *msgtype);
/*
 * The content of a line the bot says, as a Matrix user expects it: a line
 * that mentions someone (the one that tells a player to act) and every
 * private line (private_to: its recipient, then mentioned too) are m.text
 * with m.mentions, since the default push rule .m.rule.suppress_notices
 * silences notices and the player would never be alerted; other room
 * lines are m.notice, which clients show as the bot's and other bots
 * ignore.  private_to is a checked user id (mx_user_id_valid).  NULL
 * when jansson refuses the text (not UTF-8, see json.h).
 */
json_t *mx_line_content(const struct text *t, const char *private_to);
/*
 * The text a user typed: the body without the quoted fallback that
 * clients put in front of a reply (lines starting with "> " and the empty
 * line after them) when content is a reply.
 */
const char *mx_message_text(const json_t *content);

/*
 * Adds room_id to user_id's list in an m.direct content object (borrowed,
 * changed in place), keeping every other entry.  Returns 1 when it was
 * added, 0 when it was there already, -1 when direct is not an object.
 * user_id and room_id are UTF-8 (a checked user id, an id from the
 * server).
 */
int mx_direct_add(json_t *direct, const char *user_id, const char *room_id);
/* 1 when the m.direct content lists room_id for user_id. */
int mx_direct_has(const json_t *direct, const char *user_id,
    const char *room_id);

/*
 * 1 when an invite from sender is to be accepted: sender matches one of
 * the globs of allow_users (fnmatch) or its server is in allow_servers.
 */
int mx_invite_allowed(const char *sender, const json_t *allow_users,
    const json_t *allow_servers);

#endif
