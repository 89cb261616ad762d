/* hexhead.c -- hexdump -C lookalike for the first N bytes of a file.
 * Prints plain text, not JSON: JP shows it to the model as-is.
 * JP: command = "bin/hexhead {{tool.arguments.path}} {{tool.arguments.count}}"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

int main(int argc, char **argv) {
    long count = 64;
    if (argc < 2) {
        fprintf(stderr, "usage: hexhead FILE [COUNT]\n");
        return 64;
    }
    if (argc > 2 && strcmp(argv[2], "null") != 0) {
        char *end;
        count = strtol(argv[2], &end, 10);
        if (*end != '\0' || count <= 0 || count > 4096) {
            fprintf(stderr, "hexhead: bad COUNT '%s' (want 1..4096)\n", argv[2]);
            return 2;
        }
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "hexhead: cannot open %s\n", argv[1]);
        return 1;
    }
    unsigned char row[16];
    long off = 0;
    size_t got;
    while (off < count && (got = fread(row, 1, (size_t)(count - off < 16 ? count - off : 16), f)) > 0) {
        printf("%08lx  ", off);
        for (size_t i = 0; i < 16; i++) {
            if (i < got) printf("%02x ", row[i]); else printf("   ");
            if (i == 7) putchar(' ');
        }
        printf(" |");
        for (size_t i = 0; i < got; i++) putchar(isprint(row[i]) ? row[i] : '.');
        printf("|\n");
        off += (long)got;
    }
    fclose(f);
    if (off == 0) printf("(empty file)\n");
    else printf("%08lx\n", off);
    return 0;
}
