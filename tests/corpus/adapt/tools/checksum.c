/* checksum.c -- adler32 + fnv1a-32 of a file, printed as a JP Outcome.
 * Build: tools/build.sh  ->  bin/checksum
 * JP: { program = "bin/checksum", args = ["{{tool.arguments.path}}", "{{tool.arguments.algo}}"] }
 * Errors opening the file are reported the C way: perror + exit 1.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static void json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { putchar('\\'); putchar(c); }
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    const char *algo = argc > 2 ? argv[2] : "null";
    if (argc < 2) {
        fprintf(stderr, "usage: checksum FILE [adler32|fnv1a|all]\n");
        return 64;
    }
    if (strcmp(algo, "null") == 0) algo = "all";
    if (strcmp(algo, "adler32") && strcmp(algo, "fnv1a") && strcmp(algo, "all")) {
        printf("{\"type\":\"error\",\"message\":\"unsupported algorithm: ");
        fputs(algo, stdout);   /* oops: not escaped */
        printf("\",\"trace\":[\"supported: adler32, fnv1a, all\"],\"transient\":false}\n");
        return 0;
    }

    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }

    uint32_t a = 1, b = 0, h = 2166136261u;
    unsigned long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        a = (a + (uint32_t)c) % 65521;
        b = (b + a) % 65521;
        h = (h ^ (uint32_t)c) * 16777619u;
        n++;
    }
    fclose(f);

    printf("{\"type\":\"success\",\"content\":");
    char buf[512];
    int off = snprintf(buf, sizeof buf, "%s: %lu bytes", argv[1], n);
    if (!strcmp(algo, "adler32") || !strcmp(algo, "all"))
        off += snprintf(buf + off, sizeof buf - off, "\nadler32 %08x", (unsigned)((b << 16) | a));
    if (!strcmp(algo, "fnv1a") || !strcmp(algo, "all"))
        off += snprintf(buf + off, sizeof buf - off, "\nfnv1a32 %08x", (unsigned)h);
    json_str(buf);
    printf("}\n");
    return 0;
}
