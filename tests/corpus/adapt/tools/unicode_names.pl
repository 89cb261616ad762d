#!/usr/bin/env perl
# unicode_names: list the code points of a string with their Unicode names.
# Reads its input from the environment (set via env in the JP command):
#   command = "env UN_TEXT={{tool.arguments.text}} UN_LIMIT={{tool.arguments.limit}} perl tools/unicode_names.pl"
use strict;
use warnings;
use utf8;
use charnames ();
use Encode qw(decode);
use JSON::PP;

my $text  = decode('UTF-8', $ENV{UN_TEXT} // '');
my $limit = $ENV{UN_LIMIT} // 'null';
$limit = 20 if $limit eq 'null';

my $j = JSON::PP->new->ascii->canonical;    # non-ASCII goes out as \uXXXX

if ($text eq '' || $text eq 'null') {
    print $j->encode({type => 'error', message => 'text is empty', trace => [], transient => JSON::PP::false}), "\n";
    exit;
}
if ($limit !~ /^\d+$/ || $limit == 0) {
    print STDERR "unicode_names: UN_LIMIT must be a positive integer, got '$limit'\n";
    exit 2;
}

my @chars = split //, $text;
my @lines;
for my $ch (@chars[0 .. ($#chars < $limit - 1 ? $#chars : $limit - 1)]) {
    my $cp = ord $ch;
    my $name = charnames::viacode($cp) // '<unnamed>';
    push @lines, sprintf("U+%04X %s %s", $cp, ($cp < 0x20 ? ' ' : $ch), $name);
}
push @lines, sprintf("... %d more", @chars - $limit) if @chars > $limit;

print $j->encode({type => 'success', content => join("\n", @lines)}), "\n";
