/*
 * console.h - the terminal adapter: one person at a table in a terminal.
 */
#ifndef STICHBOT_CONSOLE_H
#define STICHBOT_CONSOLE_H

#include "adapter.h"
#include "i18n.h"

extern const struct adapter_impl console_adapter;

/* The channel the terminal table lives in, and the person's id. */
#define CONSOLE_CHANNEL "#table"
#define CONSOLE_USER "you"

/* The longest line taken as a command; longer ones are refused whole. */
#define CONSOLE_LINE_MAX 500

/* Runs a command as if the person had typed it, echoing it. */
void console_type(struct adapter *adapter, const char *line);

/* Prints one of the catalog's messages as a note of the terminal's own. */
void console_notice(struct adapter *adapter, enum msg id);

/*
 * Offers another game: the person's next "y" calls again(arg), "n" ends
 * the session; anything else is a command as usual.
 */
void console_offer_again(struct adapter *adapter, void (*again)(void *arg),
    void *arg);

#endif
