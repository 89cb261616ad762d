#!/usr/bin/awk -f
# log_summary.awk -- count log levels, or list the lines of one level.
#   awk -v want={{tool.arguments.level}} -f tools/log_summary.awk {{tool.arguments.file}}
# want=null (argument missing) means: summary of all levels.
# A missing file is awk's own problem: it complains on stderr and exits 2.

# gsub() and backslashes differ between gawk and mawk, so walk the string.
function esc(s,    out, i, c) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\") out = out "\\\\"
        else if (c == "\"") out = out "\\\""
        else if (c == "\t") out = out "\\t"
        else out = out c
    }
    return out
}

BEGIN {
    want = toupper(want)
    if (want == "NULL" || want == "") want = "ALL"
    nlevels = split("DEBUG INFO WARN ERROR", order, " ")
    if (want != "ALL" && want !~ /^(DEBUG|INFO|WARN|ERROR)$/) {
        printf "{\"type\":\"error\",\"message\":\"unknown level: %s\",\"trace\":[\"levels: DEBUG, INFO, WARN, ERROR\"],\"transient\":false}\n", esc(want)
        bad = 1
        exit
    }
}

{
    count[$2]++
    total++
    if ($2 == want) {
        line = $1
        msg = $0
        sub(/^[^ ]+ +[A-Z]+ +/, "", msg)
        hits = hits (nhits++ ? "\\n" : "") esc(line " " msg)
    }
}

END {
    if (bad) exit 0
    if (want == "ALL") {
        out = sprintf("%d lines in %s", total, FILENAME)
        for (i = 1; i <= nlevels; i++)
            out = out sprintf("\\n  %-5s %d", order[i], count[order[i]] + 0)
        printf "{\"type\":\"success\",\"content\":\"%s\"}\n", esc_nl(out)
        exit 0
    }
    if (nhits == 0) {
        printf "{\"type\":\"error\",\"message\":\"no %s lines in %s\",\"trace\":[],\"transient\":false}\n", want, esc(FILENAME)
        exit 0
    }
    printf "{\"type\":\"success\",\"content\":\"%d %s line(s):\\n%s\"}\n", nhits, want, hits
}

# out only contains our own \n escapes and the file name; nothing else to escape
function esc_nl(s) { return s }
