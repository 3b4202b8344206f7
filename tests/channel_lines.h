/*
 * channel_lines.h - what the bot's privacy checks read in the lines it
 * sends to channels, shared by tests/test_bot.c and fuzz/fuzz_commands.c
 * so that both hold the bot to the same reading: a card named as a whole
 * word, score sheets left out (they list earlier rounds' penalty cards,
 * now dealt again), and cards played since a point (a round's last trick
 * is announced after the next deal, which may put the same code into a
 * new hand).
 */
#ifndef STICHBOT_CHANNEL_LINES_H
#define STICHBOT_CHANNEL_LINES_H

#include <stddef.h>

struct table;

/*
 * Whether code occurs in s as a whole word (in any case when nocase).
 * By hand: the sanitizers' string interceptors would dominate a fuzzer's
 * time.
 */
int channel_has_word(const char *s, const char *code, int nocase);
/* The words of a marked line outside its score sheets, without marks. */
void channel_outside_sheets(const char *marked, char *out, size_t len);
/* Whether code was played (or selected) by an action since index from. */
int channel_played_since(const struct table *table, int from,
    const char *code);

#endif
