/* A legacy JP tool in C: prints an Outcome (SPEC §1) per action. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *action = argc > 1 ? argv[1] : "";
    const char *answer = argc > 2 ? argv[2] : "null";
    const char *picked = argc > 3 ? argv[3] : "null";
    if (strcmp(action, "greet") == 0) {
        puts("{\"type\":\"success\",\"content\":\"h\xc3\xa9llo from c \xe2\x9c\x93\"}");
    } else if (strcmp(action, "flaky") == 0) {
        puts("{\"type\":\"error\",\"message\":\"db is down\",\"trace\":[\"connect: refused\",\"c\"],\"transient\":true}");
    } else if (strcmp(action, "fail") == 0) {
        puts("{\"type\":\"error\",\"message\":\"no such file: notes.txt\",\"trace\":[],\"transient\":false}");
    } else if (strcmp(action, "confirm") == 0) {
        if (strcmp(answer, "null") == 0)
            puts("{\"type\":\"needs_input\",\"question\":{\"id\":\"confirm\",\"text\":\"Apply the patch?\","
                 "\"pre_amble\":\"3 files change.\",\"answer_type\":\"Boolean\",\"default\":null}}");
        else
            printf("{\"type\":\"success\",\"content\":\"%s\"}\n",
                   strcmp(answer, "true") == 0 ? "applied" : "skipped");
    } else if (strcmp(action, "pick") == 0) {
        if (strcmp(picked, "null") == 0)
            puts("{\"type\":\"needs_input\",\"question\":{\"id\":\"pick\",\"text\":\"Which colour?\","
                 "\"answer_type\":{\"Select\":{\"options\":[\"red\",\"green\"]}},\"default\":\"green\"}}");
        else
            printf("{\"type\":\"success\",\"content\":\"picked %s\"}\n", picked);
    } else if (strcmp(action, "raw") == 0) {
        fputs("just text, no JSON\n", stdout);
    } else if (strcmp(action, "crash") == 0) {
        fputs("partial output", stdout);
        fputs("boom: disk on fire\n", stderr);
        return 3;
    } else if (strcmp(action, "envelope") == 0) {
        fputs("{\"content\": [{\"type\": \"text\", \"text\": \"already new\"}]}", stdout);
    } else {
        fprintf(stderr, "unknown action %s\n", action);
        return 2;
    }
    return 0;
}
