/*
 * pace.c - the pace each IRC server's software lets an ordinary client
 * keep (queue.h): the queue's bucket starts at RFC 1459's and follows
 * the server once RPL_MYINFO names it.
 */
#include <ctype.h>
#include <string.h>

#include "queue.h"

/*
 * Server software by the version it names in RPL_MYINFO (004), and the
 * pace each lets an ordinary client hold without holding it back:
 *
 * - ngIRCd: measured with bench/bench_irc_pace.py on its defaults: about
 *   three lines a second pass unheld, more build up a lag; 2.5 a second
 *   after a burst of 5 keeps a margin.
 * - ircd-hybrid and its descendants (ratbox, charybdis, solanum: EFnet,
 *   OFTC, Libera.Chat): flood_recalc() lets a client's lines be parsed at
 *   MAX_FLOOD (5) a second after a burst; 2 a second stays far below, so
 *   the server's receive queue never grows towards "Excess Flood".
 * - Everything else (ircu, IRCnet's ircd, UnrealIRCd, InspIRCd, unknown):
 *   RFC 1459 section 8.10, one line per 2 s beyond a 10 s allowance (a
 *   burst of 4 with room to spare), which the others also meet.
 */
void
irc_pace_for_server(const char *version, int *burst, int *interval_ms)
{
	static const struct {
		const char *name;
		int burst, interval_ms;
	} known[] = {
		{ "ngircd", 5, 400 },
		{ "hybrid", 5, 500 },
		{ "ratbox", 5, 500 },
		{ "charybdis", 5, 500 },
		{ "solanum", 5, 500 },
	};
	char lower[128];
	size_t i;

	for (i = 0; version != NULL && version[i] != '\0' &&
	    i + 1 < sizeof(lower); i++)
		lower[i] = (char)tolower((unsigned char)version[i]);
	lower[i] = '\0';
	*burst = IRC_PACE_BURST;
	*interval_ms = IRC_PACE_INTERVAL_MS;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strstr(lower, known[i].name) != NULL) {
			*burst = known[i].burst;
			*interval_ms = known[i].interval_ms;
			return;
		}
	}
}
