#!/usr/bin/env perl
# csv_stats - column sums/min/max for a small CSV file.
#   perl tools/csv_stats.pl {{tool.arguments.file}} {{tool.arguments.column}} '{{tool.answers}}'
# Asks whether the first row is a header (Boolean, default yes).
use strict;
use warnings;
use JSON::PP;

my ($file, $column, $answers_json) = @ARGV;
my $json = JSON::PP->new->canonical(1)->ascii(1);

sub emit { print $json->encode($_[0]), "\n"; exit 0 }

my $answers = {};
if (defined $answers_json && $answers_json ne '' && $answers_json ne 'null') {
    $answers = decode_json($answers_json);
}

open(my $fh, '<:encoding(UTF-8)', $file) or emit({
    type      => 'error',
    message   => "cannot open $file",
    trace     => ["open $file: $!"],
    transient => JSON::PP::false,
});
my @rows = map { chomp; [ split /,/, $_, -1 ] } <$fh>;
close $fh;

emit({ type => 'success', content => "$file has no rows." }) unless @rows;

unless (exists $answers->{header}) {
    emit({
        type     => 'needs_input',
        question => {
            id          => 'header',
            text        => 'Treat the first row as a header?',
            pre_amble   => "First row of $file:\n  " . join(' | ', @{ $rows[0] }),
            answer_type => 'Boolean',
            default     => JSON::PP::true,
        },
    });
}

my @names;
if ($answers->{header}) {
    @names = @{ shift @rows };
} else {
    @names = map { "col$_" } 1 .. scalar @{ $rows[0] };
}

my @cols = (0 .. $#names);
if (defined $column && $column ne 'null') {
    my ($idx) = grep { $names[$_] eq $column } @cols;
    die "csv_stats: no column named '$column' (have: @names)\n" unless defined $idx;
    @cols = ($idx);
}

my @out = (sprintf "%d data row(s) in %s", scalar @rows, $file);
for my $i (@cols) {
    my @vals = map { $_->[$i] } @rows;
    my @nums = grep { defined && /^-?\d+(?:\.\d+)?$/ } @vals;
    if (@nums != @vals) {
        my %seen;
        my @uniq = grep { !$seen{$_}++ } @vals;
        push @out, sprintf "%s: text, %d distinct (%s)", $names[$i], scalar @uniq, join(', ', @uniq);
        next;
    }
    my ($min, $max, $sum) = ($nums[0], $nums[0], 0);
    for (@nums) { $sum += $_; $min = $_ if $_ < $min; $max = $_ if $_ > $max }
    push @out, sprintf "%s: sum=%.2f min=%s max=%s", $names[$i], $sum, $min, $max;
}

emit({ type => 'success', content => join("\n", @out) });
