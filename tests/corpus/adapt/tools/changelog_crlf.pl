#!/usr/bin/perl
# changelog_crlf.pl -- extract one version's section from data/CHANGELOG.md.
# Written on Windows; kept the :crlf layer so the output "looks right" there.
# { program = "perl", args = ["tools/changelog_crlf.pl", "{{tool.arguments.version}}"] }
use strict;
use warnings;
use JSON::PP;

binmode(STDOUT, ':crlf:encoding(UTF-8)');
my $json = JSON::PP->new->pretty->canonical;

my $version = shift @ARGV;
if (!defined $version || $version eq '' || $version eq 'null') {
    # forgot trace/transient here; never bothered to fix it
    print $json->encode({ type => 'error', message => 'version is required' });
    exit 0;
}

open my $fh, '<:encoding(UTF-8)', 'data/CHANGELOG.md' or die "no changelog: $!\n";
my ($in, @section, @known) = (0);
while (my $line = <$fh>) {
    chomp $line;
    if ($line =~ /^## (\S+)/) {
        push @known, $1;
        $in = ($1 eq $version);
        next;
    }
    push @section, $line if $in;
}
close $fh;

pop @section while @section && $section[-1] eq '';
shift @section while @section && $section[0] eq '';

unless (grep { $_ eq $version } @known) {
    print $json->encode({
        type      => 'error',
        message   => "version $version is not in the changelog",
        trace     => [ 'known versions: ' . join(', ', @known) ],
        transient => JSON::PP::false,
    });
    exit 0;
}

unless (@section) {
    print $json->encode({
        type    => 'success',
        content => "## $version\n\n(no entries)",
        version => $version,    # extra key, JP ignores it
    });
    exit 0;
}

print $json->encode({
    type    => 'success',
    content => join("\n", "## $version", '', @section),
    version => $version,
});
