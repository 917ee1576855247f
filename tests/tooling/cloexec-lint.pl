#!/usr/bin/perl
# Lists each call in the C files named that makes a file descriptor without
# close-on-exec (docs/design.md "Child processes"): open, openat, creat,
# fopen and freopen without "e" in the mode, tmpfile, pipe, socket,
# socketpair, accept, dup, mkstemp, mkostemp, memfd_create, eventfd,
# signalfd, timerfd_create, inotify_init, epoll_create and fcntl F_DUPFD,
# each unless its arguments say CLOEXEC (O_CLOEXEC, SOCK_CLOEXEC,
# MFD_CLOEXEC, ...). A descriptor meant for a child says so where it is
# made: "for a child" in a comment on the call's first line or the line
# above. Prints FILE:LINE: CALL for each; exits 1 when there is one.
use strict;
use warnings;

my $calls = qr/\b(open|openat|open64|creat|fopen|freopen|tmpfile|pipe|socket|socketpair|accept|dup|mkstemp|mkostemp|memfd_create|eventfd|signalfd|timerfd_create|inotify_init1?|epoll_create1?|fcntl)\s*\(/;
my $bad = 0;
for my $file (@ARGV) {
	open(my $fh, '<', $file) or die "$file: $!\n";
	my @lines = <$fh>;
	close($fh);
	my $text = join('', @lines);
	# comments and strings out of the way, lengths kept (line numbers stay)
	(my $code = $text) =~ s{/\*.*?\*/|//[^\n]*}{ (my $c = $&) =~ s/[^\n]/ /g; $c }gse;
	$code =~ s{"(?:[^"\\\n]|\\.)*"}{ '"' . ('s' x (length($&) - 2)) . '"' }ge;
	while ($code =~ /$calls/g) {
		my ($name, $at) = ($1, $-[0]);
		next if $at > 0 && substr($code, $at - 1, 1) =~ /[.>]/;	# a member
		# the arguments, to the matching parenthesis
		my ($depth, $i) = (1, pos($code));
		$i++ while $i < length($code) && ($depth += (substr($code, $i, 1) eq '(') -
							 (substr($code, $i, 1) eq ')')) > 0;
		my $args = substr($text, pos($code), $i - pos($code));
		my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
		# a declaration or definition of a function of that name is no call
		next if substr($code, 0, $at) =~ /(?:\b(?:int|void|FILE|pid_t)\s*\*?\s*)$/;
		next if $args =~ /CLOEXEC/;
		next if $name =~ /^f(re)?open$/ && $args =~ /"[rwa+bx]*e[rwa+bx]*"\s*(,|$)/;
		next if $name eq 'fcntl' && $args !~ /\bF_DUPFD\b/;
		my $near = $lines[$line - 1] . ($line > 1 ? $lines[$line - 2] : '');
		next if $near =~ m{(?:/\*|//|^\s*\*).*for a child}m;
		print "$file:$line: $name\n";
		$bad = 1;
	}
}
exit $bad;
