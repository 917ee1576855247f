#!/usr/bin/env bash
# Checks that the modules of one directory of sources depend on each other
# one way (docs/design.md "The converter"):
#   tests/tooling/module-cycles.sh SRCDIR OBJDIR
# A module is a file name without its extension (funcs.c, funcs.h and
# funcs.o are the module funcs). Two graphs among SRCDIR's modules:
#   include  X -> Y when a file of X has the line #include "Y.h" and SRCDIR
#            holds Y.h
#   call     X -> Y when OBJDIR/X.o uses a symbol (nm: U) that OBJDIR/Y.o
#            defines (a function or data: any other nm type but local ones)
# Prints "include: A B C (A>B B>C C>A)" / "call: ..." for each circle (the
# modules that reach each other, and the edges among them) and exits 1
# when there is any; exits 0 printing nothing when both graphs have none, 2 on a usage
# error (a directory missing, no object in OBJDIR).
set -u
[ $# -eq 2 ] && [ -d "$1" ] && [ -d "$2" ] || {
	echo "usage: module-cycles.sh SRCDIR OBJDIR" >&2
	exit 2
}
src=$1 obj=$2
shopt -s nullglob
objs=("$obj"/*.o)
[ ${#objs[@]} -gt 0 ] || { echo "module-cycles.sh: no object in $obj" >&2; exit 2; }

# include_edges: "X Y" lines, X's files including Y.h of SRCDIR.
include_edges() {
	local h hdrs=""
	for h in "$src"/*.h; do
		h=${h##*/}
		hdrs="$hdrs ${h%.h}"
	done
	awk -v hdrs="$hdrs" '
		BEGIN { n = split(hdrs, hs, " "); for (i = 1; i <= n; i++) known[hs[i]] = 1 }
		FNR == 1 { m = FILENAME; sub(/.*\//, "", m); sub(/\.[^.]*$/, "", m) }
		/^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.h"/ {
			h = $0
			sub(/^[^"]*"/, "", h)
			sub(/\.h".*/, "", h)
			if ((h in known) && h != m)
				print m, h
		}' "$src"/*.c "$src"/*.h
}

# call_edges: "X Y" lines, X.o using a symbol Y.o defines (one nm over
# all objects: -A names each line's object).
call_edges() {
	nm -P -A "${objs[@]}" | awk '
		{	# "OBJ: NAME TYPE [VALUE SIZE]", OBJ a path that may hold spaces
			k = index($0, ": ")
			m = substr($0, 1, k - 1); sub(/.*\//, "", m); sub(/\.o$/, "", m)
			split(substr($0, k + 2), f, " ")
		}
		f[2] == "U" { use[++nu] = m " " f[1]; next }
		f[2] ~ /^[A-TV-Z]$/ { def[f[1]] = m }
		END {
			for (i = 1; i <= nu; i++) {
				split(use[i], u, " ")
				if ((u[2] in def) && def[u[2]] != u[1])
					print u[1], def[u[2]]
			}
		}' | sort -u
}

# cycles NAME: reads "X Y" edges and prints, for each circle (a strongly
# connected set of modules, Tarjan's algorithm), "NAME: A B C (A>B B>C C>A)":
# its members and the edges among them, sorted.
cycles() {
	sort -u | awk -v name="$1" '
		$1 != $2 {
			if (!($1 in seen)) { seen[$1] = 1; node[++n] = $1 }
			if (!($2 in seen)) { seen[$2] = 1; node[++n] = $2 }
			out[$1] = out[$1] " " $2
			edges[++ne] = $1 ">" $2
		}
		function visit(v,    k, w, nw, ws, members) {
			index_of[v] = low[v] = ++counter
			stack[++sp] = v; on[v] = 1
			nw = split(out[v], ws, " ")
			for (k = 1; k <= nw; k++) {
				w = ws[k]
				if (!(w in index_of)) {
					visit(w)
					if (low[w] < low[v]) low[v] = low[w]
				} else if (on[w] && index_of[w] < low[v])
					low[v] = index_of[w]
			}
			if (low[v] != index_of[v]) return
			members = 0
			do {
				w = stack[sp--]; on[w] = 0
				comp[w] = v; members++
			} while (w != v)
			size[v] = members
		}
		END {
			for (i = 1; i <= n; i++) if (!(node[i] in index_of)) visit(node[i])
			for (i = 1; i <= n; i++) {
				r = comp[node[i]]
				if (size[r] > 1) set[r] = set[r] " " node[i]
			}
			for (i = 1; i <= ne; i++) {
				split(edges[i], e, ">")
				if (comp[e[1]] == comp[e[2]]) inner[comp[e[1]]] = inner[comp[e[1]]] " " edges[i]
			}
			for (r in set) print name ":" set[r] " (" substr(inner[r], 2) ")"
		}' | sort
}

found=$( { include_edges | cycles include; call_edges | cycles call; } )
[ -z "$found" ] && exit 0
printf '%s\n' "$found"
exit 1
