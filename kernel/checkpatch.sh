#!/bin/bash
# Run checkpatch.pl --strict on every patch and every new kernel file.
. "$(dirname "$0")/../scripts/lib.sh"
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || die "linux-source-6.1 not installed"
CP=$CACHE/linux-$SRCVER/pristine/scripts/checkpatch.pl
[ -x "$CP" ] || die "run kernel/build.sh first (no extracted tree)"
rc=0
for p in "$TOP"/kernel/patches/*.patch; do
	echo "== $(basename "$p")"
	"$CP" --strict --no-tree --no-signoff -q "$p" || rc=1
done
for f in $(cd "$TOP" && find kernel/tree dm-target -name '*.[ch]' | sort); do
	echo "== $f"
	ign=FILE_PATH_CHANGES,SPDX_LICENSE_TAG
	# TRACE_EVENT() headers follow the tracing layout upstream uses everywhere
	case $f in */trace/events/*) ign=$ign,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT ;; esac
	"$CP" --strict --no-tree -q --ignore "$ign" -f "$TOP/$f" || rc=1
done
[ $rc -eq 0 ] && echo "checkpatch: clean" || echo "checkpatch: problems found"
exit $rc
