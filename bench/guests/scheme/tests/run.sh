#!/bin/sh
# run.sh: the Scheme guest's language tests.  Usage: run.sh "COMMAND"
# (e.g. "qemu-riscv64 ../corpus/scheme.elf" or ./scheme.native), from
# bench/guests.
#
# NAME.scm runs as `COMMAND [OPTIONS] - < NAME.scm`, where OPTIONS come
# from a first line ";; options: ..."; its stdout must equal NAME.out and
# its exit status must be 0.  Each line of errors.txt is
#   PROGRAM ;=> MESSAGE
# and PROGRAM must exit 3 with exactly "scheme: error: MESSAGE" on stderr.
# Command-line errors (exit 2) are checked at the end.
cmd=$1
dir=$(dirname "$0")
tmp=${TMPDIR:-/tmp}/scheme-test.$$
fail=0
pass=0

for t in "$dir"/*.scm; do
	name=$(basename "$t" .scm)
	opts=$(sed -n '1s/^;; options: //p' "$t")
	$cmd $opts - < "$t" > "$tmp.out" 2> "$tmp.err"
	status=$?
	if [ $status -ne 0 ] || ! cmp -s "$tmp.out" "$dir/$name.out"; then
		echo "FAIL $name (exit $status)"
		diff "$dir/$name.out" "$tmp.out" | head -20
		head -5 "$tmp.err"
		fail=1
	else
		pass=$((pass + 1))
	fi
done

while IFS= read -r line; do
	case "$line" in ''|'#'*) continue;; esac
	prog=${line%% ;=> *}
	want="scheme: error: ${line#* ;=> }"
	printf '%s\n' "$prog" | $cmd - > /dev/null 2> "$tmp.err"
	status=$?
	got=$(cat "$tmp.err")
	if [ $status -ne 3 ] || [ "$got" != "$want" ]; then
		echo "FAIL error test: $prog"
		echo "  want exit 3: $want"
		echo "  got exit $status: $got"
		fail=1
	else
		pass=$((pass + 1))
	fi
done < "$dir/errors.txt"

for args in "-nosuch" "nosuchprogram" "tak huge" "tak 0" "-heap" "-gc-every x tak" "tak small extra"; do
	$cmd $args > /dev/null 2>&1
	status=$?
	if [ $status -ne 2 ]; then
		echo "FAIL command line '$args': exit $status, want 2"
		fail=1
	else
		pass=$((pass + 1))
	fi
done

rm -f "$tmp.out" "$tmp.err"
if [ $fail -eq 0 ]; then
	echo "ok   scheme tests: $pass passed ($cmd)"
fi
exit $fail
