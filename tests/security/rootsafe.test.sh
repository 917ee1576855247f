#!/usr/bin/env bash
# tier: record
# Safe as root (issue 23; docs/design.md "Threat model"): each test plays a
# second, unprivileged user (uid 65534, "nobody", through setpriv: no user
# is created) who prepares a trap in a shared place, then runs the tools
# as root into it. A decoy root file keeps its contents and inode; the tool
# either works into a safe place or refuses with one line naming the path
# and the rule; no control character or invalid UTF-8 from the attacker's
# names reaches the terminal; nothing blocks.
#   out-link-shared   -o the attacker's symlink in a sticky world-writable
#                     directory (to the decoy): refused, exit 2
#   out-link-dangling -o the attacker's dangling symlink (to a root-only
#                     directory): refused, nothing created there
#   out-link-own-dir  -o the attacker's symlink in the attacker's own
#                     directory (which fs.protected_symlinks would follow):
#                     refused
#   out-dir-link      -o through the attacker's symlink to a root-only
#                     directory: refused, nothing created there
#   out-fifo-other    -o the attacker's FIFO, with the attacker reading it:
#                     refused, the attacker reads nothing
#   out-temp-squat    the attacker creates a thousand temporaries of the
#                     names the converter would have used: it converts
#   rec-dir-other     snaptrace-record -o the attacker's directory holding a
#                     dangling record.json link: exit 2, nothing created
#   rec-default-acl   snaptrace-record -o a new directory in the attacker's
#                     directory with a default ACL granting her rwx, then
#                     snaptrace-convert -o there: she may write none of root's
#                     files (the ACL inherited, its mask the mode's group bits:
#                     record.json was 0666 less a umask the ACL replaces,
#                     rw for her: hostile16 NEW 4)
#   rec-json-swapped  -o the attacker's empty directory whose record.json
#                     the attacker swaps for a link to the decoy while
#                     recording: refused at once, the decoy intact
#   rec-dir-link      -o the attacker's symlink to a root-only directory:
#                     refused, nothing recorded there
#   rec-default-name  the default ./snaptrace-DATE in a world-writable
#                     directory where the attacker made the next seconds'
#                     names (each with a record.json link): recorded into
#                     the name with an unpredictable suffix, one warning
#                     names both (the recorder once refused: any user could
#                     stop root's recordings there)
#   rec-dir-shared    -o a directory root owns that others may write:
#                     refused
#   rec-perfmap-link  the attacker plants /tmp/perf-PID.map, a link to the
#                     decoy, for a process the recorder launched as root:
#                     the recording keeps no copy (it names the link), the
#                     decoy intact
#   rec-keep-fifo     snaptrace-record --keep-binaries of the attacker's
#                     program (hers, in root's directory: a path nobody else
#                     may change, where perf reads its build id),
#                     program, which leaves a FIFO at its own path as it
#                     exits: the recorder does not block in perf
#                     buildid-cache, and names the binary not kept
#   rec-keep-sparse   ... whose program is a sparse file of 5 GiB (its code,
#                     then a hole; 20 KiB on disk): the recorder keeps it
#                     not (one warning naming it and the bound), at once (it
#                     once wrote all 5 GiB into root's recording)
#   rec-keep-swapped  ... whose program replaces itself as it exits by a link
#                     to a root-only binary: the recorder opens the binary
#                     once, finds another build id, and keeps nothing of the
#                     root-only file (perf buildid-cache once reopened the
#                     name and copied what it led to)
#   rec-attach-fifo   root attaches (-p) to the attacker's process, which maps
#                     a library executable, removes it and leaves a FIFO at
#                     its name and at "NAME (deleted)" (what /proc/PID/maps
#                     shows): perf 6.1 --buildid-mmap opened that name to
#                     read a build id and waited on the FIFO (the recorder
#                     gave up after 30 s). Now perf runs with --no-buildid
#                     and records at once, and record.json lists the
#                     library's build id, read from the mapped file
#   rec-attach-link   ... links to a FIFO only root may open at those names
#                     (perf followed them, and waited); recorded at once,
#                     the build id listed; the attacker then rebuilds the
#                     program, and root's conversion warns of it
#   rec-attach-own    ... root's own process maps the attacker's library (in
#                     her directory), which she then replaces by FIFOs:
#                     root attaches, and records at once, as for her process
#   rec-lib-fifo      root attaches (-p) to the attacker's process, which
#                     dlopens her library, removes it and leaves FIFOs at its
#                     name and at "NAME (deleted)": `snaptrace symbols PID`
#                     lists the library's functions as mapped, and
#                     --trigger LIB:FUNC (its path, then its short name)
#                     resolves in the mapped file, named "LIB (deleted)", at
#                     once (the recorder opened the name: a FIFO refused)
#   rec-lib-link      ... links to a root-only library with a function of the
#                     same name at another offset and one of its own: root
#                     neither lists nor probes the root-only file (it once
#                     resolved the trigger there, by the name)
#   rec-launch-fifo   root runs (snaptrace-record -- PROG) the attacker's
#                     program from her directory; she replaces it by FIFOs
#                     (its name, "NAME (deleted)") once it is stopped at its
#                     exec: perf 6.1 --buildid-mmap opened that name as it
#                     started (and waited on the FIFO, 30 s). Now perf runs
#                     with --no-buildid, records at once, record.json lists
#                     the program's build id, read from the mapped file, and
#                     --keep-binaries says in one warning it keeps nothing
#   rec-perfmap-total root records the attacker's two processes (-p), each with
#                     a perf map in /tmp: one of 18 bytes and one of 256 MiB
#                     (a sparse file): the recording keeps 256 MiB in all
#                     (and 32 maps: unit test_tmpview_budget), one warning
#                     says what was left out (root once copied every map,
#                     each up to 256 MiB)
#   in-perfmap-big    the attacker's live process with a perf map of 256 MiB
#                     (a sparse file) in /tmp, and a text whose frames are
#                     in it: root converts without reading it into memory
#                     (the converter once read it whole, to compare with a
#                     kept copy there was none of)
#   rec-perfmap-nspid the attacker's JIT in a pid namespace of its own, where
#                     it took the pid of root's live process whose perf map
#                     /tmp/perf-R.map is root's, mode 0600: root attaches to
#                     it and converts while it runs: the map is not kept
#                     (one warning names it, its owner and the process's
#                     user), none of its names is in the trace (root's map
#                     once was kept as hers and named her frames)
#   perfmap-gone-convert the attacker's JIT (code in anonymous memory) whose
#                     pid had a JIT of root's, which left its perf map
#                     /tmp/perf-PID.map, mode 0600; root attaches to it, and
#                     converts once it exited: record.json names its user,
#                     the map is not read (one warning names it and why),
#                     none of its names is in the trace (root's map once
#                     named her frames: the converter judged a map of a
#                     process gone "root's or the caller's", hostile17 NEW 5)
#   perfmap-loose     ... that recording's perf.data converted alone, and the
#                     recording with an older record.json (no "uids"): no
#                     user told and the process gone, the map is not read
#   perfmap-gone-record ... the attacker's JIT exits during root's recording
#                     (which ends then): the map is not kept (one warning
#                     names it and why), none of its names is in the trace
#                     (the recorder once kept it: the process was gone when
#                     it copied the maps)
#   perfmap-child-launch root records (--multi-thread) a program launched as
#                     root that drops to the attacker's uid (setpriv), whose
#                     child, the attacker's JIT, has a pid where root's stale
#                     0600 /tmp/perf-PID.map sits: the recorder judges the
#                     child's map as it appears, against the live child's
#                     user (hers), keeps none and lists the child as hers in
#                     record.json's "uids", so the map is not read (one
#                     warning names it and why), none of its names is in
#                     the trace (root's map once named her frames: "a uid
#                     every recorded process had", hostile18 NEW 1)
#   perfmap-setpriv-launch root records (sampling) a program launched as
#                     root that becomes the attacker with the same pid
#                     (setpriv --reuid, then her JIT), in a pid namespace
#                     where the launch takes pid M and root's stale 0600
#                     /tmp/perf-M.map was there before it (root's maps for
#                     every pid of a small window there): root's conversion
#                     names none of her frames from it (record.json's "uids"
#                     once held only what the recorder noted before the
#                     program ran, root, and the map passed for its user's);
#                     the process is listed as both users, and one warning
#                     says the map is older than the process (record.json's
#                     "born")
#   perfmap-child-drop root records (--multi-thread) a launch whose child
#                     starts as root and then becomes the attacker (setpriv,
#                     then her JIT, the same pid C), in a pid namespace;
#                     root's 0600 /tmp/perf-C.map was made while the
#                     recording ran, before the child came to be (an earlier
#                     root process of that pid left it: root's maps at each
#                     pid of a small window), the recorder stopped meanwhile
#                     so that it reads their names once the child is there,
#                     still root's: the map is not kept, root's conversion
#                     names none of her frames from it and says it is a
#                     stale map, the recorder says nothing of it (an
#                     earlier process's; it once judged it against the
#                     child's user then, root's, and kept it)
#   perfmap-loose-setuid the attacker's JIT, recorded by root's -p, then
#                     execs sg (setuid root: uids AUID 0, the same pid) and
#                     runs on: its perf.data converted alone, root's stale
#                     0600 map at its pid is not read (one warning names it
#                     and why), none of its names is in the trace (the
#                     live process's effective uid 0 once passed for root's:
#                     hostile18 NEW 3)
#   rec-probe-swapped snaptrace-record --trigger-slower-than of the
#                     attacker's program, whose name the attacker keeps
#                     swapping for a FIFO and back (renames in a loop) while
#                     the recorder reads it, launches it and opens its
#                     uprobes, until several rounds recorded (stress_count;
#                     about one in four records, at most 60 each): each round
#                     records (and its 20 ms call fires the trigger: the
#                     uprobe is on the program that ran), or refuses at once
#                     naming the program; the uprobes are never opened by
#                     the name (the kernel then finds the FIFO: "cannot open
#                     the uprobe trigger", or a uprobe on it that never fires)
#   rec-dir-replaced  snaptrace run -d into the attacker's directory (who
#                     could exchange it for a fake recording between the
#                     recording and its conversion, which reads it by name),
#                     and TMPDIR a directory others may write, not sticky:
#                     refused before recording, one line naming the rule,
#                     exit 2 (the old code recorded, checked the name once,
#                     and converted what the attacker swapped in meanwhile)
#   tmpdir-link       snaptrace run with TMPDIR the attacker's symbolic link
#                     in a sticky directory to a directory only root may
#                     write: refused before recording, one line naming
#                     TMPDIR and the link, nothing made there (the front end
#                     once checked TMPDIR's real path, then mkdtemp() made
#                     root's directory through the link and the refusal
#                     named "-d"); root's own link there is followed
#   cache-home-link   root runs the recorder with HOME the attacker's
#                     directory, whose .cache is a link to a root-only
#                     directory: no perf version cache made there (the old
#                     code made a root-owned snaptrace/ where the link led)
#   in-snapshot-link  the attacker's recording lists a symlink to a root-only
#                     file: left out and named, the file's text never shown
#   in-snapshot-fifo  ... lists a FIFO: left out at once
#   in-json-fifo      its record.json is a FIFO: one line, exit 1, at once
#   in-hardlink       its snapshot is a hard link to a root file (a host with
#                     fs.protected_hardlinks=0; made by root here): left out
#   in-killed-link    a killed recorder's directory (no snapshot listed) with
#                     a perf.data symlink: left out
#   esc-stats         the attacker's trace names a function and a thread with
#                     escape sequences and a bidi override: stats' text, CSV
#                     and JSON show them escaped (the JSON parses)
#   esc-csv-formula   the attacker's trace names a thread and functions as
#                     spreadsheet formulas (=cmd|..., @SUM(1;2)): no cell of
#                     stats' CSV, read with ',' or ';' as the separator,
#                     starts a formula (OWASP: quoted, a "'" first)
#   esc-dump          --dump of that trace: escaped
#   esc-convert       converting the attacker's text and recording (comm with
#                     escapes): every message escaped
#   esc-symbols       snaptrace symbols on the attacker's binary whose symbol
#                     holds escapes: escaped
#   symbols-tsv       snaptrace symbols on the attacker's binary whose symbols
#                     are a spreadsheet formula (=cmd|' /C calc'!A0), an
#                     Objective-C method (-[Obj foo]) and a name holding a TAB
#                     and a newline: each line has its four fields (the TAB
#                     and newline escaped), the first two kept as they are
#                     (tab-separated text for scripts, which give a symbol
#                     back to --trigger: no "'" before it; docs/design.md
#                     "Threat model"), and root's recording with --trigger
#                     the Objective-C name printed finds it
#   esc-picker        snaptrace attach's picker lists the attacker's process
#                     whose command line holds escapes: escaped
#   pick-impostor     the picker lists root's process and the attacker's,
#                     named the same (comm and command line): each row names
#                     who started it (the real uid's user), so root tells
#                     them apart (the rows were once the same but the pid)
#   pick-reused       root picks its own process in snaptrace attach's
#                     picker (in a pid namespace of the test's); before the
#                     recorder attaches (held writing "attaching to process
#                     N" to a full pipe), that process ends and the attacker
#                     starts one with its pid: refused, one line naming the
#                     pid, nothing recorded (the recorder once attached to
#                     the attacker's process, its trigger and perf too)
#   exe-deleted-link  the attacker's running program, removed, and their
#                     link at "NAME (deleted)" (what /proc/PID/exe's link
#                     says then) to a root-only program: root's `snaptrace
#                     symbols PID` lists the program's own functions under
#                     that name, none of the root-only one's, and root's
#                     attach (-p, --trigger of its function) names it so in
#                     record.json ("executable", the trigger's file), never
#                     the root-only program (realpath() of /proc/PID/exe
#                     once followed the link: root listed and named it)
#   mntns-libs        the attacker's process in a user and mount namespace of
#                     its own maps a library whose path names another file
#                     of theirs here: root's `snaptrace symbols PID` lists
#                     no function of the file here (it once listed that
#                     file's as the process's), one line says why; a
#                     --trigger LIB:FUNC on it is refused naming the reason
#   in-kept-fifo      the attacker's copy of a real recording whose kept
#                     binaries (DIR/binaries, perf's build-id cache) hold a
#                     FIFO: the tree is not given to perf, said once; the
#                     recording converts, at once
#   in-kept-link-out  ... whose build-id link leads out of the recording (to a
#                     root-only file): not given to perf, said once
#   in-kept-swapped   ... whose kept binaries are right when the converter
#                     checks them, and whose elf the attacker replaces by a
#                     FIFO when perf script starts (a wrapper of perf does it
#                     then, as the attacker): perf reads a private copy (a
#                     directory of the recording owner's, mode 0700, which
#                     root's perf runs as, removed afterwards), not the
#                     attacker's tree; the recording converts, at once
#   in-kept-stale     the private copies converters killed left (root's, a
#                     minute old, unlocked) are removed by the next one, and
#                     so is one given to the attacker (root's conversion of
#                     her recording: binaries_kept_give(); once left for
#                     ever), her link in it not followed (root's decoy it
#                     leads to stays); a young one, a locked one, one of
#                     hers others may read, and in hers a sticky directory
#                     with root's file (what she could not remove) stay
#   in-kept-dir-link  ... whose binaries directory is a link to a root-only
#                     directory: not given to perf, said once
#   in-jitdump-swapped root's recording of a JIT (tests/e2e/jit_target.c)
#                     whose jitdump is in a directory of root's (mode 755,
#                     the old check's "safe") inside the attacker's: as perf
#                     inject starts (a wrapper of perf), the attacker renames
#                     it away and puts a directory with a FIFO of the
#                     jitdump's name in its place: perf inject reads a
#                     private copy (perf once opened the FIFO by name and
#                     hung), the JIT's function is named, and no ELF file
#                     perf inject writes lands in either directory
#   in-jitdump-big    ... then the attacker puts a sparse file of 5 GiB (no
#                     block on disk) where that FIFO was: root converts at
#                     once, one warning says the jitdump is not read (more
#                     than the 4 GiB a conversion copies; the copy once
#                     wrote out every byte of the holes)
#   in-perf-mountns   the attacker's crafted perf.data: root's recording of
#                     a JIT whose jitdump mapping names the attacker's
#                     jitdump instead, with the pid of the attacker's process
#                     in a user and mount namespace of its own, whose root is
#                     the attacker's directory, where the ELF files perf
#                     inject --jit writes are bind mounts of the decoy: perf
#                     (its nsinfo: the live pid's /proc/PID/ns/mnt) entered
#                     that namespace to read the jitdump and write its ELF
#                     files, into the decoy; now the decoy keeps its contents,
#                     root writes nothing into the attacker's directory
#   in-perfmap-fifo   root's recording of a JIT that wrote /tmp/perf-PID.map
#                     (kept in the recording); the JIT gone, the attacker
#                     makes a FIFO of that name: root converts at once
#                     (perf once opened the FIFO by name and waited), the
#                     JIT's function named from the kept copy, the FIFO left
#                     as it was
#   in-perfmap-link   ... a copy of that recording without the kept copy,
#                     and the attacker's symbolic link of that name to a
#                     root-only file holding a perf map line at the JIT's
#                     address (fs.protected_symlinks=0 here): no byte of the
#                     file in the trace (perf once named the JIT's function
#                     from it), the file unchanged, one warning names the
#                     link
#   in-perfmap-other  ... and the attacker's own regular file of that name,
#                     naming the JIT's address: its name is not in the trace
#                     (perf once took it), one warning names the file's owner
#   in-perfmap-thread ... that copy's perf.data forged (every record of the
#                     JIT's process says thread pid+1, the JIT's //anon
#                     mapping process pid+1): perf names the map after the
#                     thread's process, a name the view did not predict;
#                     the attacker's link there to a root-only file holding
#                     a perf map line at the JIT's address, then their FIFO:
#                     converted at once, no byte of the file in the trace or
#                     the messages (perf once opened them in the real /tmp)
#   in-perfmap-minus1 ... forged so that every record names process and
#                     thread -1 (perf opens /tmp/perf--1.map): the same
#   in-perf-compressed root's perf record -z of the JIT (its mappings inside
#                     PERF_RECORD_COMPRESSED records), the attacker's link
#                     at its /tmp/perf-PID.map: refused at once, one line
#                     naming the file and -z, no byte of the file read
#   user-perfmap-fifo ... the copy converted by a third user (uid 65533, not
#                     root) with the attacker's FIFO there: converts at once
#                     (perf in a user namespace of that user's, with a
#                     private /tmp), or where no user namespace can be made,
#                     refuses at once with one line naming the FIFO and why
#   user-perfmap-nons ... and where that user may make no user namespace (a
#                     user namespace of theirs whose max_user_namespaces is
#                     0, capabilities dropped): refused at once, one line
#                     naming the FIFO, its owner and why
#   in-perfmap-comm   the attacker's JIT, named "NStgid:", in a user and
#                     mount namespace of its own, and their FIFO at
#                     /tmp/perf-0.map; root attaches to it and converts while
#                     it runs: at once (perf took the name's "NStgid:" line
#                     of /proc/PID/status for the pid, 0, and opened the FIFO)
#   perfmap-alias     root's JIT in a pid and mount namespace of its own
#                     writes /tmp/perf-1.map; root attaches: converted while
#                     it runs (without the kept copy) and once it ended (the
#                     copy the recorder kept by that name), its function is
#                     named
#   in-link-shared    each program's input named through the attacker's
#                     symlink in a sticky world-writable directory (to a
#                     root-only file or directory: a text, a perf.data, a
#                     recording directory, a trace for stats, a directory on
#                     the way): refused at once, one line naming the path and
#                     fs.protected_symlinks, the file's text never shown;
#                     root's own link there, and the attacker's link in the
#                     attacker's own directory, are followed (the kernel's rule)
#   in-link-nonsticky each program's input named through the attacker's symlink
#                     in a directory anyone may write, not sticky (to a
#                     root-only file: a text, a trace for stats): refused at
#                     once, one line naming the path and the rule, the
#                     file's text never shown (the kernel's rule, which only
#                     guards sticky directories, had root read it: the
#                     converter showed its first line); root's own link there
#                     too (anyone may replace it)
#   hang-symbols-fifo snaptrace symbols on the attacker's FIFO: refused at
#                     once, exit 2, naming what was expected
#   hang-stats-fifo   snaptrace stats on the attacker's FIFO (named as root's
#                     trace would be): refused at once, exit 2 (no named FIFO
#                     is read, root's own neither: issue 24)
#   hang-convert-fifo snaptrace-convert on the attacker's FIFO (named as an
#                     input would be): refused at once, exit 2; a pipe
#                     (/dev/stdin) still converts
#   hang-pt-dso-fifo  an Intel PT perf.data (the generator's) of the attacker's
#                     program, replaced by a FIFO since: the in-process
#                     decoder does not wait on it (it names it, and perf
#                     script decodes), the trace is read back
#   theirs-pt-rootonly the attacker's copy of an Intel PT perf.data (the
#                     generator's) of a program only root may read: no
#                     function of it is named (decoded by perf script, run as
#                     her, never in process, whose reads are root's); root's
#                     own is named
#   hang-dso-fifo     a perf script text naming the attacker's FIFO as a dso:
#                     converts at once (source lines looked up)
#   in-dso-link       root's recording of the attacker's program, in the
#                     attacker's own directory, which the attacker then
#                     replaces by a symbolic link to a root-only copy of it
#                     whose function is renamed (its build id kept): the
#                     root-only name is not in the trace (perf script once
#                     opened the program by name and followed the link), one
#                     warning names the link left out of perf's view
#   in-dso-swapped    ... and the attacker exchanges the program and a FIFO
#                     in a loop (renameat2 RENAME_EXCHANGE) while root
#                     converts it 24 times (stress_count): each
#                     conversion ends at once (perf script once stat()ed the
#                     program, then opened the FIFO by name and waited: 3
#                     conversions of 12 hung), the trace read back
#   in-dwarf-bomb     the attacker's programs (built with -g) whose one
#                     compressed DWARF section (a GNU .zdebug_ one, an ELF
#                     SHF_COMPRESSED one) inflates 256 MiB of zeros from
#                     256 KiB: root's conversion of a text naming them, and
#                     root's --trigger line: on one, never hold the 256 MiB
#                     (libdw once inflated it: the converter kept one such
#                     section per binary until it ended); the conversion
#                     names each binary once and converts without its
#                     lines, the recorder refuses naming the section
#   in-dwz-altlink    the attacker's program whose DWARF dwz split: its
#                     .gnu_debugaltlink names a file of the attacker's
#                     directory. The real file there gives its lines; the
#                     attacker's link there to a root-only ELF file (one's
#                     CU directory pointed at a secret string of that
#                     file's .debug_str): no byte of it in the trace, one
#                     warning names the link; a FIFO there: root's
#                     conversion ends at once, one warning names it, and the
#                     recorder's --trigger line: refuses at once naming it
#                     (libdw once opened that name as root: the string in
#                     the trace; both blocked on the FIFO, deaf to SIGTERM)
#   in-json-bomb      the attacker's copy of a recording whose record.json
#                     holds 3 million values (6 MiB: json-c's tree takes
#                     about 70 bytes a value) in a member of its own, or in
#                     a hit: refused at once, one line naming the file and
#                     the bound, without holding their memory (the
#                     converter once parsed them all, 37 times the file)
#   in-json-string    ... whose threads[0].comm is one string of 8 MiB: refused
#                     at once, one line naming the file, its line and the
#                     bound (1 MiB a string: the converter once read a
#                     record.json of 200 MiB whose comm was one string into
#                     412 MB of memory, exit 0)
#   tmp-submount      root's program with anonymous executable memory (which
#                     has perf see the /tmp view) run from a tmpfs mounted
#                     below /tmp (in a mount namespace of the test's): its
#                     function is named in the trace (the view, an overlay
#                     of /tmp's one file system, once showed the mount point
#                     empty: the frames were named by the file)
#   debuglink-cwd     root converts its own recording of its own program
#                     from a sticky world-writable directory where the
#                     attacker left a copy of libc's debug file (same build
#                     id) at the name libc's .gnu_debuglink gives, a libc
#                     function renamed in it: libc's frames keep their names
#                     (perf 6.1 looks for a debuglink's file by the bare name
#                     first, in its working directory: perf once ran in the
#                     converter's, and root's trace named libc's frames as
#                     the attacker chose; plain perf script there shows the
#                     trap is real)
#   tmp-vdso-debug    the attacker owns /tmp/.debug and watches /tmp
#                     (inotify): for each perf-vdso.so-XXXXXX perf makes
#                     there (its copy of the vdso) she plants a file of that
#                     name in /tmp/.debug, where perf then looks for its debug
#                     file; root converts its own recording of a program with
#                     no JIT code: root's perf opens none of her files (perf
#                     once wrote its copy into the real /tmp for such a
#                     recording and opened what she planted: a link to a
#                     root-only file was followed)
#   tmp-debug-dir     root's program right in /tmp, its debug file split off
#                     (.gnu_debuglink), and /tmp/.debug a directory of root's
#                     that others may write, where the attacker leaves a
#                     debug file of that name made from root's program (same
#                     build id, its function renamed): plain perf script takes
#                     it; root's conversion names the function rightly (the
#                     converter's perf view once showed such a /tmp/.debug)
#   comm-newline      root records its own program on CPU 0 while the
#                     attacker's process, named "\n1/1 1.0: 1 x:" (a newline,
#                     then what reads as a header of pid 1), runs there: perf
#                     script cuts root's sched_switch lines at her next_comm;
#                     root's trace holds only its program's process (the rest
#                     of each cut line once made samples of pid 1, "x", from
#                     root's and her stacks, and lost root's off-CPU stacks;
#                     docs/design.md "Threat model")
#   kernel-oracle     root converts a perf.data of the attacker's (a copy of
#                     a recording with kernel frames: she could put any
#                     kernel address in it): no kernel function is named,
#                     one warning says why (root's /proc/kallsyms once named
#                     the attacker's addresses, 73 of 99 probes: the
#                     kernel's layout, which kallsyms_show_value() hides
#                     from her); root's own recording is named
#   theirs-dso-rootonly root converts the attacker's perf.data (a copy of root's
#                     recording of a program only root may read, in a 0700
#                     directory: she could write any path into her file): no
#                     function of that binary is named and no source line read
#                     from its DWARF (perf script, run as her, cannot open it);
#                     root's own copy is named, with its lines
#   theirs-srcline-text root converts the attacker's perf script text naming
#                     root's root-only binary (theirs-dso-rootonly's, built
#                     with -g), its function and address: no source line
#                     from its DWARF reaches the trace (the converter read it
#                     as root, issue 23); root's own copy of the text gets it
#   theirs-measured-caller root converts the attacker's recording directory
#                     (her record.json measures main of root's root-only
#                     binary, her calls file gives a return address inside
#                     root_only_work, no sample shows a caller): the
#                     caller's frame the converter names from the binary's
#                     symbols is not named (it read them as root, issue 23);
#                     root's own copy of the directory names it
#   theirs-perf-session ... her copy, converted by root at a terminal
#                     (script(1)'s) with a session keyring of root's,
#                     through a perf wrapper that, as her, tries /dev/tty
#                     and reads its session keyring's id: no terminal (she
#                     could push a command into root's shell with TIOCSTI,
#                     hostile17) and a keyring of its own, not root's
#   theirs-buildid-verdict root converts the attacker's copy of that
#                     recording's perf.data with the binary's build id
#                     changed: no warning tells her the root-only binary's
#                     build id (root's check read it: "changed since the
#                     recording ... the file's now ID")
#   theirs-jitdump-root root converts the attacker's copy of the perf.data of
#                     root's JIT recording, whose jitdump is now root's 0600:
#                     not read (one warning names it and why), the jitdump's
#                     function unnamed; root's own recording is named
#   theirs-perfmap-root root converts the attacker's copy of the perf.data of
#                     root's JIT recording (no kept map), whose pid has root's
#                     /tmp/perf-PID.map of mode 0600: none of its names
#                     reaches the trace (the view copies only a map she may
#                     open: hostile15 1b); root's own recording is named
#   theirs-attr-bits  ... her copy with its first attribute's branch_sample_type
#                     0xffffffff (hostile15: it crashed root's perf script,
#                     SIGSEGV): refused, exit 1, one line naming the field
#   theirs-perf-uid   ... her copy, converted with a perf wrapper that notes its
#                     uid and capabilities: perf runs as her (uid 65534), with
#                     no capability (a crash of perf's reader is hers)
#   theirs-perf-env   ... her copy, converted by root with a secret in its
#                     environment and HOME root's, through a perf wrapper whose
#                     environment (/proc/PID/environ: perf's, which she reads
#                     as her process's): nothing but the locale, PATH the
#                     system's, HOME hers and PAGER=cat (perf once got root's
#                     whole environment: hostile16 NEW 2)
#   theirs-perf-fds   ... her copy, converted by root holding a root-only file
#                     open (as a caller's shell may hand one on), through a
#                     perf wrapper that lists the fds perf gets: 0, 1, 2 and
#                     those its command line names (/proc/self/fd/N), none
#                     twice, nothing of root's (perf once got its stderr
#                     file twice, tmpfile()'s fd not close-on-exec, and
#                     every fd root's caller left open)
#   theirs-perf-stopped ... her copy, converted by root through a perf wrapper
#                     (perf's process, hers) that notes its pid; she sends it
#                     SIGSTOP: the conversion fails, exit 1, one line naming
#                     the pid and that it stayed stopped, no trace, the
#                     stopped process ended (root's conversion once waited
#                     for ever)
#   theirs-perf-ptrace ... her copy, converted by root (perf as found in PATH,
#                     no wrapper: an ELF file) while a tool of hers
#                     (tests/security/ptraceat.c) waits for her perf script,
#                     stops it and tries PTRACE_ATTACH and /proc/PID/mem:
#                     both refused, the conversion done (perf, her process,
#                     was hers to ptrace: hostile17 held it in a pause()
#                     loop and root's conversion waited for ever; now it
#                     runs from an image she may not read, runas_image())
#   theirs-perf-prestop root converts the attacker's JIT recording (a perf.data
#                     of hers with anonymous executable memory: perf runs in
#                     a pid namespace, as its first process, which becomes her
#                     and then execs perf while its parent stays root's)
#                     through a wrapper of root's whose interpreter is hers;
#                     her lease on it (tests/security/leaseat.c) holds that
#                     process in its exec, and as the lease breaks she stops
#                     it (SIGSTOP: hers between its uid change and its exec):
#                     the conversion fails, exit 1, one line naming the pid
#                     and that it stayed stopped before its exec, no trace,
#                     the stopped process ended (root's conversion once
#                     polled for ever: the wait for the exec looked at its
#                     direct child only, root's; hostile18 NEW 2)
#   theirs-lease      root converts its recording of the attacker's program
#                     while she holds a write lease on it (leaseat): one
#                     warning says the binary is "held by a lease of uid
#                     65534" (it said "gone since the recording": the
#                     converter's non-blocking open read the lease as no
#                     file; hostile18 NEW 4), and the conversion ends, her
#                     frames named; her lease lets go once broken (one she
#                     keeps costs each open perf makes of the file up to
#                     fs.lease-break-time, 45 s: docs/design.md "Threat model")
#   debuglink-path    root records the attacker's program (stripped, no build
#                     id) whose .gnu_debuglink names a root-only library by
#                     its absolute path, and converts it: refused, exit 1,
#                     one line naming the binary and the debuglink, no trace
#                     (root's perf once opened that library and named the
#                     program's frames from its symbols)
#   tmp-many-names    the attacker makes 100,000 names in /tmp; root records
#                     its program with anonymous executable memory (which has
#                     perf see the /tmp view), and converts with a perf
#                     wrapper that lists perf's /tmp: converted, the function
#                     named, perf's /tmp holds the program's directory, none
#                     of the attacker's names and at most 1024
#                     (TMPVIEW_ENTRIES_MAX; the view once bound every name of
#                     /tmp: 3 s for 100,000, then "No space left on device"
#                     past the kernel's mount-max, and the conversion failed)
#   in-buildid-cache  root once profiled the attacker's program with plain perf
#                     record (which copies it into root's build-id cache,
#                     ~/.debug; here a HOME of the test's), a copy of root's
#                     own program whose function the attacker renamed (the
#                     build id kept): root's later recording of its own
#                     program names root's function, not the attacker's
#                     (perf script once took the cached copy for any binary
#                     of that build id), and the recorder adds nothing to
#                     the cache
#   home-plugins      root runs snaptrace-convert (on root's own recording),
#                     snaptrace-record and snaptrace run with HOME the
#                     attacker's directory, whose
#                     .local/lib/traceevent/plugins/ holds a plugin (and
#                     TRACEEVENT_PLUGIN_DIR, PERF_CONFIG, PERF_EXEC_PATH the
#                     attacker's): the plugin's constructor never runs as
#                     root (perf's libtraceevent once dlopened it whenever it
#                     read the recording's tracepoints); plain perf script
#                     with that HOME shows the trap is real
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

NAMES="in-link-shared out-link-shared out-link-dangling out-link-own-dir out-dir-link out-fifo-other
in-link-nonsticky out-temp-squat rec-dir-other rec-default-acl rec-json-swapped rec-dir-link rec-default-name rec-dir-shared
rec-dir-replaced tmpdir-link cache-home-link rec-perfmap-link rec-attach-fifo rec-attach-link rec-attach-own rec-lib-fifo rec-lib-link rec-launch-fifo rec-perfmap-total in-perfmap-big rec-perfmap-nspid rec-probe-swapped rec-keep-fifo rec-keep-sparse rec-keep-swapped in-snapshot-link in-snapshot-fifo in-json-fifo in-hardlink in-killed-link esc-stats esc-dump
esc-csv-formula esc-convert esc-symbols symbols-tsv esc-picker pick-impostor pick-reused exe-deleted-link mntns-libs in-kept-fifo in-kept-link-out in-kept-swapped in-kept-stale in-kept-dir-link
theirs-jitdump-root in-jitdump-swapped in-jitdump-big in-perf-mountns in-perfmap-fifo in-perfmap-link in-perfmap-other theirs-perfmap-root in-perfmap-thread in-perfmap-minus1
in-perf-compressed user-perfmap-fifo user-perfmap-nons in-perfmap-comm perfmap-alias in-buildid-cache home-plugins
perfmap-gone-convert perfmap-loose perfmap-gone-record perfmap-child-launch perfmap-loose-setuid perfmap-setpriv-launch perfmap-child-drop
debuglink-cwd tmp-vdso-debug tmp-debug-dir kernel-oracle comm-newline theirs-dso-rootonly theirs-attr-bits theirs-perf-uid theirs-perf-env theirs-perf-fds theirs-perf-stopped theirs-perf-ptrace theirs-perf-prestop theirs-lease theirs-perf-session theirs-srcline-text theirs-measured-caller theirs-buildid-verdict debuglink-path hang-symbols-fifo hang-stats-fifo hang-convert-fifo hang-pt-dso-fifo theirs-pt-rootonly hang-dso-fifo in-dso-link in-dso-swapped in-dwarf-bomb in-dwz-altlink in-json-bomb in-json-string tmp-submount
tmp-many-names"
need_built rootsafe "$CONVERT" "$RECORD" "$SNAPTRACE_BIN/snaptrace-stats" "$SNAPTRACE_TEST_BIN/ptraceat" \
	"$SNAPTRACE_TEST_BIN/leaseat"
requires_all second_user

AUID=65534
AGID=65534
# the second user's command prefix (a function would hide a background pid)
ATTACKER=(setpriv --reuid="$AUID" --regid="$AGID" --clear-groups)
STATS="$SNAPTRACE_BIN/snaptrace-stats"
FRONT="$SNAPTRACE_BIN/snaptrace"
IN="$SNAPTRACE_TOP/tests/cases/call-return/input.txt"
EXPECTED="$SNAPTRACE_TOP/tests/cases/call-return/expected.txt"
ESC=$(printf '\033')
BEL=$(printf '\007')
RLO=$(printf '\342\200\256')   # U+202E RIGHT-TO-LEFT OVERRIDE

# as_attacker CMD...: runs CMD as the second user (no groups, no capabilities).
as_attacker() {
	"${ATTACKER[@]}" "$@"
}

# The places: $TMP is only traversable by others; SHARED is like /tmp, HOME_A
# a directory of the attacker's own, ROOTONLY one only root may write.
chmod 711 "$TMP"
SHARED="$TMP/shared"
HOME_A="$TMP/home"
ROOTONLY="$TMP/rootonly"
mkdir -m 1777 "$SHARED"
mkdir -m 755 "$HOME_A"
chown "$AUID:$AGID" "$HOME_A"
mkdir -m 755 "$ROOTONLY"
# BINS_A: root's directory holding files of the attacker's (the rec-keep-*
# programs): nobody but root may change a name there, so perf record reads
# their build ids (--buildid-mmap) and --keep-binaries has them to keep
BINS_A="$TMP/bins"
mkdir -m 755 "$BINS_A"
cp "$IN" "$HOME_A/in.txt"
chmod 644 "$HOME_A/in.txt"
DECOY="$TMP/decoy"
printf 'root decoy %s\n' "$RANDOM$RANDOM" >"$DECOY"
chmod 600 "$DECOY"
DECOY_TEXT=$(cat "$DECOY")
DECOY_INO=$(stat -c %i "$DECOY")
SECRET="$TMP/secret"
printf 'SECRET-%s: a root-only file\n' "$RANDOM$RANDOM" >"$SECRET"
chmod 600 "$SECRET"
SECRET_WORD=$(cut -d: -f1 "$SECRET")

# decoy_intact NAME: the decoy has its contents and inode; returns 1 after a FAIL.
decoy_intact() {
	if [ "$(stat -c %i "$DECOY")" != "$DECOY_INO" ] || [ "$(cat "$DECOY")" != "$DECOY_TEXT" ]; then
		fail "$1" "the decoy root file changed: $(head -c 80 "$DECOY" | tr -c '[:print:]' '?')"
		return 1
	fi
}

# untouched NAME DIR: DIR, which only root may write, is still empty;
# returns 1 after a FAIL.
untouched() {
	if [ -n "$(ls -A "$2")" ]; then
		fail "$1" "root wrote into $2: $(ls -A "$2" | tr '\n' ' ')"
		return 1
	fi
}

# clean_text NAME FILE: FILE holds no control character but newlines and
# tabs (the separators of the tools' own formats), and is UTF-8; returns 1
# after a FAIL.
clean_text() {
	if LC_ALL=C tr -d '\n\t' <"$2" | LC_ALL=C grep -q '[[:cntrl:]]'; then
		fail "$1" "a control character reached the output: $(LC_ALL=C cat -v "$2" | grep -m1 '\^' | cut -c 1-200)"
		return 1
	fi
	if ! iconv -f UTF-8 -t UTF-8 "$2" >/dev/null 2>&1; then
		fail "$1" "invalid UTF-8 reached the output: $(LC_ALL=C cat -v "$2" | head -c 200)"
		return 1
	fi
	if grep -q "$RLO" "$2"; then
		fail "$1" "a bidi override reached the output"
		return 1
	fi
}

# refuses RC NAME STATUS PATTERN ERR: the exit status RC is STATUS, ERR one
# line matching PATTERN (the path and the rule); returns 1 after a FAIL.
refuses() {
	local rc=$1 name=$2 want=$3 pat=$4 err=$5
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit $rc, expected $want: $(first_lines "$err")"
	elif [ "$(wc -l <"$err")" -ne 1 ] || ! grep -Eq -- "$pat" "$err"; then
		fail "$name" "expected one line matching /$pat/: $(first_lines "$err")"
	else
		return 0
	fi
	return 1
}

# blocked RC: whether exit status RC is timeout's (the command blocked).
blocked() {
	[ "$1" -eq 124 ] || [ "$1" -eq 137 ]
}

# convert_to NAME OUT: root converts the call-return text to OUT (stderr in
# $TMP/NAME.err); returns the converter's status.
convert_to() {
	timeout -k 5 30 "$CONVERT" -q "$IN" -o "$2" 2>"$TMP/$1.err"
}

out_link_shared() {
	as_attacker ln -s "$DECOY" "$SHARED/trace.fxt"
	convert_to out-link-shared "$SHARED/trace.fxt"
	refuses $? out-link-shared 2 "$SHARED/trace.fxt: .*not following the symbolic link trace.fxt, another user's \(uid $AUID\)" \
		"$TMP/out-link-shared.err" && decoy_intact out-link-shared &&
		[ -L "$SHARED/trace.fxt" ] && ok out-link-shared
}

out_link_dangling() {
	as_attacker ln -s "$ROOTONLY/planted.fxt" "$SHARED/dangling.fxt"
	convert_to out-link-dangling "$SHARED/dangling.fxt"
	refuses $? out-link-dangling 2 "dangling.fxt: .*not following the symbolic link" \
		"$TMP/out-link-dangling.err" && untouched out-link-dangling "$ROOTONLY" &&
		ok out-link-dangling
}

out_link_own_dir() {
	as_attacker ln -s "$DECOY" "$HOME_A/trace.fxt.gz"
	convert_to out-link-own-dir "$HOME_A/trace.fxt.gz"
	refuses $? out-link-own-dir 2 "not following the symbolic link trace.fxt.gz, another user's" \
		"$TMP/out-link-own-dir.err" && decoy_intact out-link-own-dir && ok out-link-own-dir
}

out_dir_link() {
	as_attacker ln -s "$ROOTONLY" "$SHARED/d"
	convert_to out-dir-link "$SHARED/d/out.fxt"
	refuses $? out-dir-link 2 "$SHARED/d/out.fxt: .*not following the symbolic link d," \
		"$TMP/out-dir-link.err" && untouched out-dir-link "$ROOTONLY" && ok out-dir-link
}

out_fifo_other() {
	local reader
	as_attacker mkfifo "$SHARED/t.fxt"
	"${ATTACKER[@]}" sh -c "exec cat '$SHARED/t.fxt' >'$HOME_A/stolen'" &
	reader=$!
	convert_to out-fifo-other "$SHARED/t.fxt"
	local rc=$?
	end_bg "$reader"
	if refuses "$rc" out-fifo-other 2 "t.fxt: .*a FIFO of uid $AUID, not yours or root's" \
		"$TMP/out-fifo-other.err"; then
		if [ -s "$HOME_A/stolen" ]; then
			fail out-fifo-other "the attacker read $(stat -c %s "$HOME_A/stolen") bytes of root's trace"
		else
			ok out-fifo-other
		fi
	fi
}

# The names the converter's temporaries once had (".st-PID-N.tmp") are all
# taken before it starts (its pid is known here: the subshell execs it).
out_temp_squat() {
	local d="$SHARED/squat" rc
	mkdir -m 1777 "$d"
	(
		as_attacker sh -c 'for n in $(seq 0 999); do : >"$1/.st-$2-$n.tmp"; done' sh "$d" "$BASHPID"
		exec "$CONVERT" -q "$IN" -o "$d/t.fxt"	# the pid the names hold
	) 2>"$TMP/out-temp-squat.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail out-temp-squat "exit $rc: $(first_lines "$TMP/out-temp-squat.err")"
	elif ! "$CONVERT" --dump=slices "$d/t.fxt" >"$TMP/out-temp-squat.slices" 2>&1 ||
		! slices_match "$TMP/out-temp-squat.slices" "$EXPECTED" >/dev/null; then
		fail out-temp-squat "the trace does not read back: $(first_lines "$TMP/out-temp-squat.slices")"
	elif [ "$(find "$d" -name '.st-*' -user "$AUID" | wc -l)" -ne 1000 ]; then
		fail out-temp-squat "the attacker's files were touched"
	else
		ok out-temp-squat
	fi
}

# record NAME ARGS...: root records `sleep 0.3` (no trigger) with ARGS;
# returns its status, stderr in $TMP/NAME.err.
record() {
	local name=$1
	shift
	timeout -k 5 60 "$RECORD" "$@" --trigger none -- sleep 0.3 >/dev/null 2>"$TMP/$name.err"
}

rec_dir_other() {
	local d="$SHARED/rec"
	as_attacker mkdir -m 777 "$d"
	as_attacker ln -s "$ROOTONLY/record.json" "$d/record.json"
	record rec-dir-other -o "$d"
	refuses $? rec-dir-other 2 "$d: a directory of uid $AUID: a recording directory must be its recorder's own" \
		"$TMP/rec-dir-other.err" && untouched rec-dir-other "$ROOTONLY" && ok rec-dir-other
}

# The attacker replaces record.json by a link to the decoy, again and
# again, while root records into the attacker's directory.
# rec_default_acl: see the header.
rec_default_acl() {
	local d="$HOME_A/acl" rec="$HOME_A/acl/rec" f w=
	# her directory with her default ACL (POSIX.1e xattr: user:AUID rwx, mask
	# rwx; set without a tool by root's python3, which she may not run: hers
	# to set as the directory's owner)
	mkdir "$d"
	if ! python3 -c '
import os, struct, sys
e = lambda tag, perm, i: struct.pack("<HHI", tag, perm, i)
U = 0xffffffff
acl = struct.pack("<I", 2) + e(1, 7, U) + e(2, 7, int(sys.argv[2])) + e(4, 5, U) + e(0x10, 7, U) + e(0x20, 5, U)
os.setxattr(sys.argv[1], "system.posix_acl_default", acl)' "$d" "$AUID" 2>"$TMP/rec-default-acl.err" ||
		! chown "$AUID:$AGID" "$d"; then
		fail rec-default-acl "her default ACL could not be set: $(first_lines "$TMP/rec-default-acl.err")"
		return
	fi
	if ! record rec-default-acl -o "$rec" ||
		! timeout -k 5 60 "$CONVERT" -q "$rec" -o "$d/trace.fxt" 2>>"$TMP/rec-default-acl.err"; then
		fail rec-default-acl "recording or converting failed: $(first_lines "$TMP/rec-default-acl.err")"
		return
	fi
	# access(2): the kernel judges her ACL entry and its mask
	for f in $(find "$rec" "$d/trace.fxt"); do
		as_attacker test -w "$f" && w="$w ${f#"$d/"}"
	done
	if ! python3 -c 'import os, sys; os.getxattr(sys.argv[1], "system.posix_acl_access")' "$rec/record.json" 2>/dev/null; then
		fail rec-default-acl "record.json did not inherit her ACL: the test tells nothing"
	elif [ -n "$w" ]; then
		fail rec-default-acl "she may write root's:$w ($(stat -c '%n %A' "$rec/record.json" | sed "s|$d/||"))"
	else
		ok rec-default-acl
	fi
}

rec_json_swapped() {
	local d="$SHARED/rec2" swapper rc
	as_attacker mkdir -m 777 "$d"
	"${ATTACKER[@]}" sh -c 'while :; do rm -f "$1/record.json"; ln -s "$2" "$1/record.json"; done' \
		sh "$d" "$DECOY" 2>/dev/null &
	swapper=$!
	record rec-json-swapped -o "$d"
	rc=$?
	end_bg "$swapper"
	refuses "$rc" rec-json-swapped 2 "$d: a directory of uid $AUID" "$TMP/rec-json-swapped.err" &&
		decoy_intact rec-json-swapped && ok rec-json-swapped
}

rec_dir_link() {
	as_attacker ln -s "$ROOTONLY" "$SHARED/recdir"
	record rec-dir-link -o "$SHARED/recdir"
	refuses $? rec-dir-link 2 "$SHARED/recdir: .*not following the symbolic link recdir" \
		"$TMP/rec-dir-link.err" && untouched rec-dir-link "$ROOTONLY" && ok rec-dir-link
}

# The attacker makes the default directory names of the next seconds, each
# with a record.json link to where root would then write.
rec_default_name() {
	local d="$SHARED/cwd" t now got
	mkdir -m 1777 "$d"
	now=$(date +%s)	# once: a name per second from now, none skipped as the loop runs
	for t in $(seq 0 40); do	# the recorder probes the host first: seconds
		as_attacker sh -c 'mkdir -m 777 "$1" && ln -s "$2" "$1/record.json"' sh \
			"$d/snaptrace-$(date -d "@$((now + t))" +%Y%m%d-%H%M%S)" "$ROOTONLY/default.json"
	done
	(cd "$d" && record rec-default-name)
	t=$?
	got=$(sed -n 's/.*; recording into \(snaptrace-[0-9]*-[0-9]*-[A-Za-z0-9_-]\{8\}\) instead$/\1/p' \
		"$TMP/rec-default-name.err")
	if [ "$t" -ne 0 ]; then
		fail rec-default-name "exit $t: $(first_lines "$TMP/rec-default-name.err")"
	elif [ -z "$got" ] || ! grep -q "warning: snaptrace-[0-9-]*: a directory of uid $AUID.*; recording into $got instead" \
		"$TMP/rec-default-name.err"; then
		fail rec-default-name "expected a warning naming the taken name and the one chosen: $(first_lines "$TMP/rec-default-name.err")"
	elif [ ! -f "$d/$got/record.json" ] || [ -L "$d/$got/record.json" ] ||
		[ "$(stat -c %u "$d/$got")" != 0 ]; then
		fail rec-default-name "no recording of root's in $got: $(ls -la "$d/$got" 2>&1 | head -n 3 | tr '\n' ' ')"
	else
		untouched rec-default-name "$ROOTONLY" && ok rec-default-name
	fi
}

rec_dir_shared() {
	local d="$TMP/open-rec"
	mkdir -m 777 "$d"
	chmod 777 "$d"
	record rec-dir-shared -o "$d"
	refuses $? rec-dir-shared 2 "$d: writable by others \(mode 0777\)" "$TMP/rec-dir-shared.err" &&
		untouched rec-dir-shared "$d" && ok rec-dir-shared
}

rec_dir_replaced() {
	local d="$HOME_A/run-rec" open="$TMP/open-tmpdir" rc
	timeout -k 5 60 "$FRONT" run -q -d "$d" -o "$TMP/rec-dir-replaced.fxt" --trigger none -- true \
		>/dev/null 2>"$TMP/rec-dir-replaced.err"
	rc=$?
	if [ -e "$d" ] || [ -e "$TMP/rec-dir-replaced.fxt" ]; then
		fail rec-dir-replaced "recorded into the attacker's directory: $(first_lines "$TMP/rec-dir-replaced.err")"
		return
	fi
	refuses "$rc" rec-dir-replaced 2 "^snaptrace: -d $d: $HOME_A \(owned by uid $AUID\) lets another user rename" \
		"$TMP/rec-dir-replaced.err" || return
	mkdir -m 777 "$open" && chmod 777 "$open"
	TMPDIR="$open" timeout -k 5 60 "$FRONT" run -q -o "$TMP/rec-dir-replaced.fxt" --trigger none -- true \
		>/dev/null 2>"$TMP/rec-dir-replaced.err"
	rc=$?
	if [ -n "$(ls -A "$open")" ]; then
		fail rec-dir-replaced "recorded into TMPDIR $open, which others may write"
	elif refuses "$rc" rec-dir-replaced 2 "^snaptrace: TMPDIR $open: $open \(writable by others" \
		"$TMP/rec-dir-replaced.err"; then
		ok rec-dir-replaced
	fi
}

# TMPDIR the attacker's symbolic link in a sticky directory to a directory
# only root may write; then root's own link there.
tmpdir_link() {
	local to="$TMP/tmpdir-to" link="$SHARED/tmpdir-link" own="$SHARED/tmpdir-own" rc
	mkdir -m 700 "$to"
	as_attacker ln -s "$to" "$link"
	TMPDIR="$link" timeout -k 5 60 "$FRONT" run -q -o "$TMP/tmpdir-link.fxt" --trigger none -- true \
		>/dev/null 2>"$TMP/tmpdir-link.err"
	rc=$?
	untouched tmpdir-link "$to" || return
	refuses "$rc" tmpdir-link 2 "^snaptrace: TMPDIR $link: .*not following the symbolic link tmpdir-link, another user's \(uid $AUID\)" \
		"$TMP/tmpdir-link.err" || return
	ln -s "$to" "$own"
	TMPDIR="$own" timeout -k 5 60 "$FRONT" run -q -o "$TMP/tmpdir-link.fxt" --trigger none -- true \
		>/dev/null 2>"$TMP/tmpdir-link.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$TMP/tmpdir-link.fxt" ]; then
		fail tmpdir-link "root's own link as TMPDIR: exit $rc: $(first_lines "$TMP/tmpdir-link.err")"
	else
		untouched tmpdir-link "$to" && ok tmpdir-link	# the temporary removed
	fi
}

cache_home_link() {
	as_attacker ln -s "$ROOTONLY" "$HOME_A/.cache"
	HOME="$HOME_A" XDG_CACHE_HOME= "$RECORD" --dry-run -o "$TMP/cache-home" -- true \
		>/dev/null 2>"$TMP/cache-home-link.err"
	rm -f "$HOME_A/.cache"
	untouched cache-home-link "$ROOTONLY" && ok cache-home-link
}

# rec-perfmap-nspid: see the header. PIDJIT, the attacker's JIT: in a pid
# namespace of its own (unshare -Urp --fork: pid 1 there) it has its next
# child take pid WANT there (ns_last_pid, which it may write in its
# namespace), which runs code in anonymous executable memory at
# 0x7f0000001000 (mov $0x10000,%eax; 1: dec %rax; jnz 1b; ret) for SECS.
rec_perfmap_nspid() {
	local d="$TMP/rec-perfmap-nspid" r a p i rc why=
	if ! printf '%s\n' '#define _GNU_SOURCE' '#include <stdio.h>' '#include <stdlib.h>' \
		'#include <string.h>' '#include <sys/mman.h>' '#include <sys/wait.h>' '#include <time.h>' \
		'#include <unistd.h>' \
		'int main(int argc, char **argv) { int want = atoi(argv[1]); time_t end = time(NULL) + atoi(argv[2]);' \
		'FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w"); pid_t c;' \
		'if (argc != 3 || !f || fprintf(f, "%d", want - 1) < 0 || fclose(f)) { perror("ns_last_pid"); return 1; }' \
		'if ((c = fork()) == 0) { static const unsigned char code[] = { 0x48, 0xc7, 0xc0, 0, 0, 1, 0, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };' \
		'unsigned char *p = mmap((void *)0x7f0000001000, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);' \
		'if (p == MAP_FAILED || getpid() != want) { printf("pid %d, not %d\n", (int)getpid(), want); return 1; }' \
		'memcpy(p, code, sizeof(code)); while (time(NULL) < end) ((void (*)(void))p)(); return 0; }' \
		'waitpid(c, NULL, 0); return 0; }' |
		cc -x c -o "$TMP/pidjit" - 2>"$d.cc"; then
		fail rec-perfmap-nspid "cannot build the program (cc): $(first_lines "$d.cc")"
		return
	fi
	sleep 60 &	# root's JIT, its perf map (mode 0600) made below
	r=$!
	"${ATTACKER[@]}" unshare -Urp --fork "$TMP/pidjit" "$r" 30 >"$d.jit" 2>&1 &
	a=$!
	for i in $(seq 200); do	# unshare, its child pidjit (pid 1 there), and its child
		p=$(cat "/proc/$a/task/$a/children" 2>/dev/null)
		p=$(cat "/proc/${p// /}/task/${p// /}/children" 2>/dev/null)
		p=${p// /}
		[ -n "$p" ] && grep -q "^NStgid:.*[[:space:]]$r\$" "/proc/$p/status" 2>/dev/null && break
		p=
		sleep 0.05
	done
	# root's map made once her JIT runs: a map from before her process came
	# to be is no map of hers and is said nothing of (perfmap_file_ok()'s
	# age rule; under load her start once came 30 ms after it), one made
	# since is judged by its owner, the rule under test
	if [ -n "$p" ]; then
		printf '7f0000001000 20 ROOT_JIT_secret_method\n' >"/tmp/perf-$r.map"
		chmod 600 "/tmp/perf-$r.map"
	fi
	if [ -z "$p" ]; then
		why="the attacker's JIT did not take pid $r in its namespace: $(first_lines "$d.jit")"
	elif ! timeout -k 5 30 "$RECORD" -q -o "$d" --trigger none --duration 0.5 -p "$p" 2>"$d.err"; then
		why="root's recording failed: $(first_lines "$d.err")"
	elif ! timeout -k 5 30 "$CONVERT" -q "$d" -o "$d.fxt" 2>"$d.conv.err"; then
		why="root's conversion failed: $(first_lines "$d.conv.err")"
	fi
	[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
	wait "$a" 2>/dev/null
	end_bg "$r"
	rm -f "/tmp/perf-$r.map"
	if [ -n "$why" ]; then
		fail rec-perfmap-nspid "$why"
	elif grep -rlq ROOT_JIT_secret "$d"; then
		fail rec-perfmap-nspid "root's 0600 map was kept as the attacker's process's: $(ls "$d" | tr '\n' ' ')"
	elif "$CONVERT" --dump=slices "$d.fxt" 2>&1 | grep -q ROOT_JIT_secret; then
		fail rec-perfmap-nspid "root's 0600 map named the attacker's frames"
	elif ! grep -q "^snaptrace-record: warning: /tmp/perf-$r.map: not kept in the recording: owned by uid 0, not by process $p's user (uid $AUID)" "$d.err"; then
		fail rec-perfmap-nspid "no warning names root's map and why: $(first_lines "$d.err")"
	else
		ok rec-perfmap-nspid
	fi
}

# her_jit SECS OUT: starts the attacker's JIT (HERJIT: code in anonymous
# executable memory at 0x7f0000001000, as rec-perfmap-nspid's, run until
# the file $TMP/herjit.stop exists (the test's word: never a race with how
# long perf takes to attach on a loaded machine), at most SECS, and then it
# exits) in the background, its pid in HER_PID once it runs that
# code, with root's stale perf map at its pid: /tmp/perf-PID.map, mode 0600,
# naming ROOT_JIT_secret_method there (a JIT of root's that had the pid
# before and exited, as JITs leave their maps). Returns 1 when it did not start.
her_jit() {
	local i
	HER_PID=
	rm -f "$TMP/herjit.stop"
	[ -x "$TMP/herjit" ] || printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' \
		'#include <string.h>' '#include <sys/mman.h>' '#include <time.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) { time_t end = time(NULL) + atoi(argv[1]);' \
		'static const unsigned char code[] = { 0x48, 0xc7, 0xc0, 0, 0, 1, 0, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };' \
		'unsigned char *p = mmap((void *)0x7f0000001000, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);' \
		'if (argc != 2 || p == MAP_FAILED) return 1;' \
		'memcpy(p, code, sizeof(code)); printf("running\n"); fflush(stdout);' \
		'while (time(NULL) < end && access("'"$TMP/herjit.stop"'", F_OK)) ((void (*)(void))p)(); return 0; }' |
		cc -x c -o "$TMP/herjit" - 2>"$2.cc" || return 1
	"${ATTACKER[@]}" "$TMP/herjit" "$1" >"$2" 2>&1 &
	HER_PID=$!
	for i in $(seq 200); do
		grep -q running "$2" 2>/dev/null && break
		sleep 0.05
	done
	printf '7f0000001000 20 ROOT_JIT_secret_method\n' >"/tmp/perf-$HER_PID.map"
	chmod 600 "/tmp/perf-$HER_PID.map"
	grep -q running "$2"
}

# no_root_names NAME FXT: no frame of FXT is named from root's map; returns
# 1 after a FAIL.
no_root_names() {
	if "$CONVERT" --dump=slices "$2" 2>&1 | grep -q ROOT_JIT_secret; then
		fail "$1" "root's 0600 map named the attacker's frames"
		return 1
	fi
}

# perfmap-gone-convert, perfmap-loose: see the header.
perfmap_gone_convert() {
	local d="$TMP/perfmap-gone" p why= f
	if ! her_jit 60 "$d.jit"; then
		why="the attacker's JIT did not start: $(first_lines "$d.jit") $(first_lines "$d.jit.cc")"
	elif ! timeout -k 5 30 "$RECORD" -q -o "$d" --trigger none --duration 0.5 -p "$HER_PID" \
		2>"$d.err"; then
		why="root's recording failed: $(first_lines "$d.err")"
	fi
	p=$HER_PID
	touch "$TMP/herjit.stop"
	wait "$p" 2>/dev/null	# her process exits; root's map stays
	if [ -n "$why" ]; then
		fail perfmap-gone-convert "$why"
		fail perfmap-loose "$why"
		rm -f "/tmp/perf-$p.map"
		return
	fi
	if ! timeout -k 5 30 "$CONVERT" -q "$d" -o "$d.fxt" 2>"$d.conv.err"; then
		fail perfmap-gone-convert "root's conversion failed: $(first_lines "$d.conv.err")"
	elif no_root_names perfmap-gone-convert "$d.fxt"; then
		if ! grep -q '"uids": \[{"pid": '"$p"', "uid": '"$AUID"', "euid": '"$AUID"', "born": [0-9]*}\]' "$d/record.json"; then
			fail perfmap-gone-convert "record.json does not name the process's user: $(grep uids "$d/record.json")"
		elif ! grep -q "perf map /tmp/perf-$p.map is not read (owned by uid 0, not by process $p's user (uid $AUID))" "$d.conv.err"; then
			fail perfmap-gone-convert "no warning names root's map and why: $(first_lines "$d.conv.err")"
		else
			ok perfmap-gone-convert
		fi
	fi
	# the same perf.data alone, and its recording with an older record.json
	# (no "uids"): no user told, the process gone
	f=$(ls "$d"/perf.data* | head -n 1)
	cp -r "$d" "$d.old"
	sed -i '/"uids"/d' "$d.old/record.json"
	cp "$f" "$d.loose.data"
	why=
	for f in "$d.loose.data" "$d.old"; do
		if ! timeout -k 5 30 "$CONVERT" -q "$f" -o "$d.loose.fxt" 2>"$d.loose.err"; then
			why="root's conversion of $f failed: $(first_lines "$d.loose.err")"
		elif "$CONVERT" --dump=slices "$d.loose.fxt" 2>&1 | grep -q ROOT_JIT_secret; then
			why="root's 0600 map named the attacker's frames in $f"
		elif ! grep -q "perf map /tmp/perf-$p.map is not read (owned by uid 0, process $p gone, and no record.json tells its user)" "$d.loose.err"; then
			why="no warning names root's map and why for $f: $(first_lines "$d.loose.err")"
		fi
		[ -n "$why" ] && break
	done
	rm -f "/tmp/perf-$p.map"
	verdict perfmap-loose "$why"
}

# perfmap-gone-record: see the header.
perfmap_gone_record() {
	local d="$TMP/perfmap-gone-rec" p r why=
	if ! her_jit 60 "$d.jit"; then
		why="the attacker's JIT did not start: $(first_lines "$d.jit") $(first_lines "$d.jit.cc")"
	elif ! { timeout -k 5 60 "$RECORD" -o "$d" --trigger none --duration 30 -p "$HER_PID" \
		2>"$d.err" & r=$!
		# her process exits once root's perf records it (the recorder's
		# "recording process N" line)
		wait_until 30 grep -q '^snaptrace-record: recording process' "$d.err"
		touch "$TMP/herjit.stop"
		wait "$r"; }; then
		why="root's recording failed: $(first_lines "$d.err")"
	elif ! timeout -k 5 30 "$CONVERT" -q "$d" -o "$d.fxt" 2>"$d.conv.err"; then
		why="root's conversion failed: $(first_lines "$d.conv.err")"
	fi
	p=$HER_PID
	wait "$p" 2>/dev/null
	rm -f "/tmp/perf-$p.map"
	if [ -n "$why" ]; then
		fail perfmap-gone-record "$why"
	elif ! grep -q '"end": "exit"' "$d/record.json"; then
		fail perfmap-gone-record "the recording did not end at the process's exit: $(grep '"end"' "$d/record.json")"
	elif [ -e "$d/perf-$p.map" ]; then
		fail perfmap-gone-record "root's 0600 map was kept as the attacker's process's: $(ls "$d" | tr '\n' ' ')"
	elif no_root_names perfmap-gone-record "$d.fxt"; then
		if ! grep -q "^snaptrace-record: warning: /tmp/perf-$p.map: not kept in the recording: owned by uid 0, not by process $p's user (uid $AUID)" "$d.err"; then
			fail perfmap-gone-record "no warning names root's map and why: $(first_lines "$d.err")"
		else
			ok perfmap-gone-record
		fi
	fi
}

# jit_prog OUT: builds the attacker's JIT program into OUT: "OUT SECS
# [fork|PROG ARG...]" runs code in anonymous executable memory at
# 0x7f0000001000 until the file OUT.stop exists (the test's word), at most
# SECS, as her_jit's, in a child it waits for (fork) or
# itself and then execs PROG ARG...; it prints "running PID" (the JIT's
# pid) once that code runs. Returns 1 when it cannot be built (OUT.cc says why).
jit_prog() {
	[ -x "$1" ] || printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' \
		'#include <string.h>' '#include <sys/mman.h>' '#include <sys/wait.h>' \
		'#include <time.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) { time_t end = time(NULL) + atoi(argv[1]);' \
		'static const unsigned char code[] = { 0x48, 0xc7, 0xc0, 0, 0, 1, 0, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };' \
		'unsigned char *p; pid_t c = -1;' \
		'if (argc > 2 && !strcmp(argv[2], "fork") && (c = fork()) > 0) { waitpid(c, NULL, 0); return 0; }' \
		'p = mmap((void *)0x7f0000001000, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);' \
		'if (p == MAP_FAILED) return 1;' \
		'memcpy(p, code, sizeof(code)); printf("running %d\n", (int)getpid()); fflush(stdout);' \
		'while (time(NULL) < end && access("'"$1.stop"'", F_OK)) ((void (*)(void))p)();' \
		'if (c < 0 && argc > 2) { execv(argv[2], argv + 2); return 1; } return 0; }' |
		cc -x c -o "$1" - 2>"$1.cc"
}

# jitprog_ready NAME: builds the attacker's JIT program, $TMP/jitprog
# (jit_prog), and removes its stop file; FAILs NAME and returns 1 when it
# cannot be built.
jitprog_ready() {
	if ! jit_prog "$TMP/jitprog"; then
		fail "$1" "cannot build the program (cc): $(first_lines "$TMP/jitprog.cc")"
		return 1
	fi
	rm -f "$TMP/jitprog.stop"
}

# jit_started OUT: the pid OUT's "running PID" line names, once it is there
# (at most 10 s); nothing when it is not.
jit_started() {
	wait_until 10 grep -q '^running ' "$1" && sed -n 's/^running \([0-9]*\)$/\1/p' "$1" | head -n 1
}

# root_map PID: root's stale perf map at PID, mode 0600 (a JIT of root's
# that had the pid before left it), naming ROOT_JIT_secret_method.
root_map() {
	printf '7f0000001000 20 ROOT_JIT_secret_method\n' >"/tmp/perf-$1.map"
	chmod 600 "/tmp/perf-$1.map"
}

# map_refused NAME WHY D PID WHY_SAID: NAME's verdict on the conversion
# D.fxt (its stderr D.conv.err) of PID's JIT code, root's stale map at its
# pid: FAIL with WHY when set; else none of the map's names, a frame of the
# JIT's code, and a warning "perf map /tmp/perf-PID.map is not read WHY_SAID".
map_refused() {
	if [ -n "$2" ]; then
		fail "$1" "$2"
	elif no_root_names "$1" "$3.fxt"; then
		if ! "$CONVERT" --dump=slices "$3.fxt" 2>&1 | grep -q "perf-$4.map"; then
			fail "$1" "the trace has no frame of the JIT code (pid $4)"
		elif ! grep -qF "perf map /tmp/perf-$4.map is not read $5" "$3.conv.err"; then
			fail "$1" "no warning names root's map and why: $(first_lines "$3.conv.err")"
		else
			ok "$1"
		fi
	fi
}

# perfmap-child-launch: see the header.
perfmap_child_launch() {
	local d="$TMP/perfmap-child" r c why=
	jitprog_ready perfmap-child-launch || return
	timeout -k 5 60 "$RECORD" -q --multi-thread --mode sampling --trigger none -o "$d" -- \
		"${ATTACKER[@]}" "$TMP/jitprog" 2 fork >"$d.jit" 2>"$d.err" &
	r=$!
	c=$(jit_started "$d.jit")
	[ -n "$c" ] && root_map "$c"
	wait "$r" || why="root's recording failed: $(first_lines "$d.err")"
	if [ -z "$c" ]; then
		why="the attacker's JIT did not start: $(first_lines "$d.jit")"
	elif [ -z "$why" ] && ! timeout -k 5 30 "$CONVERT" -q "$d" -o "$d.fxt" 2>"$d.conv.err"; then
		why="root's conversion failed: $(first_lines "$d.conv.err")"
	fi
	[ -n "$c" ] && rm -f "/tmp/perf-$c.map"
	[ -z "$why" ] && [ -e "$d/perf-$c.map" ] &&
		why="root's 0600 map was kept as the attacker's process's"
	map_refused perfmap-child-launch "$why" "$d" "$c" \
		"(owned by uid 0, not by process $c's user (uid $AUID))"
}

# perfmap-setpriv-launch: see the header. In a pid namespace of its own
# (unshare --pid --mount-proc: only the test's processes, their pids from
# PIDNS_FIRST on), root's stale maps sit at each of the window's pids before
# the recorder runs (no map appears while it records); her JIT prints the
# pid it took ("running M"). Converted there too, while its /proc is the one
# the recording's pids are of.
PIDNS_FIRST=4000000

# pidns_done STATUS D: removes root's maps at the window's pids and prints
# why a run in the pid namespace (perfmap-setpriv-launch's and
# perfmap-child-drop's) failed by its exit STATUS (nothing: it did not),
# with its recorder's stderr D.err and its converter's D.conv.err.
pidns_done() {
	local i
	for i in $(seq "$PIDNS_FIRST" $((PIDNS_FIRST + 63))); do
		rm -f "/tmp/perf-$i.map"
	done
	case $1 in
	0) ;;
	1) echo "cannot set ns_last_pid in a pid namespace" ;;
	2) echo "root's recording failed: $(first_lines "$2.err")" ;;
	3) echo "root's conversion failed: $(first_lines "$2.conv.err")" ;;
	*) echo "the pid namespace failed: $(first_lines "$2.err")" ;;
	esac
}
perfmap_setpriv_launch() {
	local d="$TMP/perfmap-setpriv" m i why=
	jitprog_ready perfmap-setpriv-launch || return
	for i in $(seq "$PIDNS_FIRST" $((PIDNS_FIRST + 63))); do
		root_map "$i"
	done
	timeout -k 5 90 unshare --pid --fork --mount-proc bash -c '
		echo $(($3 - 1)) >/proc/sys/kernel/ns_last_pid || exit 1
		timeout -k 5 60 "$1" -q --mode sampling --trigger none -o "$2" -- "${@:5}" \
			>"$2.jit" 2>"$2.err" || exit 2
		timeout -k 5 30 "$4" -q "$2" -o "$2.fxt" 2>"$2.conv.err" || exit 3' \
		rootsafe "$RECORD" "$d" "$PIDNS_FIRST" "$CONVERT" "${ATTACKER[@]}" "$TMP/jitprog" 1
	why=$(pidns_done $? "$d")
	m=$(jit_started "$d.jit")
	if [ -z "$why" ] && { [ -z "$m" ] || [ "$m" -ge $((PIDNS_FIRST + 64)) ]; }; then
		why="her JIT did not run at a pid of the window ('$m'): $(first_lines "$d.jit")"
	elif [ -z "$why" ] && [ -e "$d/perf-$m.map" ]; then
		why="root's 0600 map was kept as her process's"
	elif [ -z "$why" ] && ! grep -q "\"uids\": \[{\"pid\": $m, \"uid\": 0, \"euid\": 0, \"born\": [0-9]*}, {\"pid\": $m, \"uid\": $AUID, \"euid\": $AUID, \"born\": [0-9]*}\]" "$d/record.json"; then
		why="record.json does not list both users process $m had: $(grep uids "$d/record.json")"
	fi
	map_refused perfmap-setpriv-launch "$why" "$d" "$m" \
		"(there, unchanged, since before process $m came to be: a stale map, not its)"
}

# perfmap-child-drop: see the header. In a pid namespace of its own (as
# perfmap-setpriv-launch's): the launch forks the child when told (the
# FIFO D.fork), the child says its pid (D.child) and waits, root's, until
# told to drop (D.drop). The recorder is stopped while root's maps are made
# and the child forked at the window's first pid (ns_last_pid: nothing
# else forks there meanwhile), then let go on; the child drops once the
# recorder holds a map of it or after 3 s.
perfmap_child_drop() {
	local d="$TMP/perfmap-drop" c why=
	jitprog_ready perfmap-child-drop || return
	mkfifo "$d.fork" "$d.drop"
	timeout -k 5 90 unshare --pid --fork --mount-proc bash -c '
		rec=$1 conv=$2 d=$3 first=$4
		shift 4
		"$rec" -q --multi-thread --mode sampling --trigger none -o "$d" -- bash -c "
			echo up >\"\$1.up\"
			read -r _ <\"\$1.fork\"
			(echo \$BASHPID >\"\$1.child\"; read -r _ <\"\$1.drop\"; shift; exec \"\$@\" 2) &
			wait \$!" launch "$d" "$@" >"$d.jit" 2>"$d.err" &
		r=$!
		for ((i = 0; i < 200; i++)); do [ -e "$d.up" ] && break; sleep 0.05; done
		[ -e "$d.up" ] || exit 2
		kill -STOP "$r"
		umask 077
		for ((i = first; i < first + 64; i++)); do
			printf "7f0000001000 20 ROOT_JIT_secret_method\n" >"/tmp/perf-$i.map"
		done
		sleep 0.2	# older than the child by more than PERFMAP_BORN_SLACK_NS
		echo $((first - 1)) >/proc/sys/kernel/ns_last_pid || exit 1
		echo >"$d.fork"
		for ((i = 0; i < 1000000; i++)); do [ -s "$d.child" ] && break; done
		kill -CONT "$r"
		for ((i = 0; i < 60; i++)); do
			ls -l "/proc/$r/fd" 2>/dev/null | grep -q "/tmp/perf-$(<"$d.child").map" && break
			sleep 0.05
		done
		echo >"$d.drop"
		wait "$r" || exit 2
		timeout -k 5 30 "$conv" -q "$d" -o "$d.fxt" 2>"$d.conv.err" || exit 3' \
		rootsafe "$RECORD" "$CONVERT" "$d" "$PIDNS_FIRST" "${ATTACKER[@]}" "$TMP/jitprog"
	why=$(pidns_done $? "$d")
	c=$(jit_started "$d.jit")
	if [ -z "$why" ] && [ "$c" != "$PIDNS_FIRST" ]; then
		why="her JIT did not run at pid $PIDNS_FIRST ('$c'): $(first_lines "$d.jit")"
	elif [ -z "$why" ] && [ -e "$d/perf-$c.map" ]; then
		why="root's 0600 map was kept as her process's"
	elif [ -z "$why" ] && grep -qF "/tmp/perf-$c.map" "$d.err"; then
		why="the recorder spoke of root's stale map (an earlier process's: none of the child's, nothing to say): $(grep -F "/tmp/perf-$c.map" "$d.err" | head -n 1)"
	fi
	map_refused perfmap-child-drop "$why" "$d" "$c" \
		"(there, unchanged, since before process $c came to be: a stale map, not its)"
}

# perfmap-loose-setuid: see the header.
perfmap_loose_setuid() {
	local d="$TMP/perfmap-sg" a p f why=
	jitprog_ready perfmap-loose-setuid || return
	"${ATTACKER[@]}" "$TMP/jitprog" 60 /usr/bin/sg nogroup -c "sleep 30" >"$d.jit" 2>&1 &
	a=$!
	p=$(jit_started "$d.jit")
	if [ -z "$p" ]; then
		why="the attacker's JIT did not start: $(first_lines "$d.jit")"
	else
		root_map "$p"
		if ! timeout -k 5 30 "$RECORD" -q -o "$d" --trigger none --duration 0.5 -p "$p" \
			2>"$d.err"; then
			why="root's recording failed: $(first_lines "$d.err")"
		elif ! touch "$TMP/jitprog.stop" ||
			! wait_until 10 grep -Eq "^Uid:[[:space:]]+$AUID[[:space:]]+0[[:space:]]" "/proc/$p/status"; then
			why="the attacker's process did not become sg: $(grep -E '^(Name|Uid)' "/proc/$p/status" 2>&1 | tr '\n' ' ')"
		else
			f=$(ls "$d"/perf.data* | head -n 1)
			cp "$f" "$d.loose.data"
			timeout -k 5 30 "$CONVERT" -q "$d.loose.data" -o "$d.fxt" 2>"$d.conv.err" ||
				why="root's conversion failed: $(first_lines "$d.conv.err")"
		fi
	fi
	[ -n "$p" ] && rm -f "/tmp/perf-$p.map"
	end_bg "$a"
	map_refused perfmap-loose-setuid "$why" "$d" "$p" \
		"(owned by uid 0, not by both the recording's owner (uid 0) and process $p's user (uid $AUID, effective uid 0))"
}

rec_perfmap_link() {
	local d="$TMP/rec-perfmap" pid i rc map mode
	requires rec-perfmap-link cc || return
	if ! printf '%s\n' '#include <stdio.h>' '#include <time.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) { struct timespec t = { 0, 600000000 }; FILE *f;' \
		'(void)argc; f = fopen(argv[1], "w"); fprintf(f, "%d", (int)getpid()); fclose(f);' \
		'nanosleep(&t, NULL); return 0; }' |
		cc -x c -o "$TMP/pidsleep" - 2>"$TMP/rec-perfmap.err"; then
		fail rec-perfmap-link "cannot build the program (cc): $(first_lines "$TMP/rec-perfmap.err")"
		return
	fi
	"$RECORD" -q -o "$d" --trigger none -- "$TMP/pidsleep" "$TMP/perfmap.pid" \
		>/dev/null 2>"$TMP/rec-perfmap.err" &
	# the program writes its pid once the recorder has started it: polled
	# while the recorder runs (a loaded machine takes seconds to get there)
	for ((i = 0; i < 3000; i++)); do
		[ -s "$TMP/perfmap.pid" ] && break
		kill -0 $! 2>/dev/null || break
		sleep 0.02
	done
	pid=$(cat "$TMP/perfmap.pid" 2>/dev/null)
	map=/tmp/perf-$pid.map
	# the suite's /tmp is its own, root's (tests/run.sh): shared as the real one for this
	mode=$(stat -c %a /tmp)
	chmod 1777 /tmp
	[ -n "$pid" ] && as_attacker ln -s "$DECOY" "$map" 2>>"$TMP/rec-perfmap.ln"
	chmod "$mode" /tmp
	wait $!
	rc=$?
	if [ -z "$pid" ] || [ ! -L "$map" ]; then
		fail rec-perfmap-link "the program gave no pid ('$pid') or the link $map was not planted (exit $rc): $(first_lines "$TMP/rec-perfmap.err") $(cat "$TMP/rec-perfmap.ln" 2>/dev/null)"
	elif [ -e "$d/perf-$pid.map" ]; then
		fail rec-perfmap-link "the decoy was copied into the recording: $(ls "$d" | tr '\n' ' ')"
	elif ! decoy_intact rec-perfmap-link; then
		:
	elif ! grep -q "$map: not kept in the recording: a symbolic link" "$TMP/rec-perfmap.err"; then
		fail rec-perfmap-link "exit $rc, no warning naming the link: $(first_lines "$TMP/rec-perfmap.err")"
	else
		ok rec-perfmap-link
	fi
	[ -n "$pid" ] && rm -f "$map"
}

# start_printing NAME ERR CMD...: runs CMD in the background (stdout
# $TMP/NAME.pid, stderr ERR), which prints its pid and waits; sets PID to it.
# Returns 1 after a FAIL (it printed none, 10 s or its end).
start_printing() {
	local name=$1 err=$2 i
	shift 2
	"$@" >"$TMP/$name.pid" 2>"$err" &
	for ((i = 0; i < 500; i++)); do
		PID=$(cat "$TMP/$name.pid" 2>/dev/null)
		[ -n "$PID" ] && return 0
		kill -0 $! 2>/dev/null || break
		sleep 0.02
	done
	fail "$name" "the program gave no pid: $(first_lines "$err")"
	return 1
}

# attach_trap NAME MODE: a process which maps a library executable (the
# attacker's file, in her directory) and waits; root records it (-p) into
# $TMP/NAME.rec within 20 s, less than the 30 s the recorder waits for perf
# to get ready (stderr in $TMP/NAME.err). MODE "fifo": the process is the
# attacker's, and removes the library and leaves FIFOs at its name and at
# "NAME (deleted)" (what /proc/PID/maps shows); "link:TARGET": symbolic
# links to TARGET there; "own": the process is root's, and the attacker
# then does as "fifo" does. Sets LIB (the library), PROG (the program) and
# RC (the recorder's status); returns 1 after a FAIL.
attach_trap() {
	local name=$1 mode=$2 pid="" err="$TMP/$1.err" run=("${ATTACKER[@]}")
	LIB="$HOME_A/$name.so" PROG="$HOME_A/$name"
	printf '%s\n' '#include <fcntl.h>' '#include <stdio.h>' '#include <string.h>' \
		'#include <sys/mman.h>' '#include <sys/stat.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) { char del[4096]; int fd = open(argv[1], O_RDONLY);' \
		'if (argc < 3 || fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0)' \
		'== MAP_FAILED) return 1; close(fd);' \
		'snprintf(del, sizeof(del), "%s (deleted)", argv[1]);' \
		'if (!strcmp(argv[2], "fifo") && (unlink(argv[1]) || mkfifo(argv[1], 0644) ||' \
		'mkfifo(del, 0644))) return 1;' \
		'if (!strncmp(argv[2], "link:", 5) && (unlink(argv[1]) || symlink(argv[2] + 5, argv[1]) ||' \
		'symlink(argv[2] + 5, del))) return 1;' \
		'printf("%d\n", (int)getpid()); fflush(stdout); pause(); return 0; }' |
		attacker_program "$name" "$PROG" || return 1
	as_attacker sh -c 'cat >"$1"' sh "$LIB" <"$(readlink -f /bin/true)"
	if [ "$mode" = own ]; then	# root's program, in root's directory
		run=()
		PROG="$TMP/$name.prog"
	fi
	start_printing "$name" "$err" "${run[@]}" "$PROG" "$LIB" "$mode" || return 1
	pid=$PID
	[ "$mode" = own ] && as_attacker sh -c 'rm "$1" && mkfifo "$1" "$1 (deleted)"' sh "$LIB"
	timeout -k 5 20 "$RECORD" -q -o "$TMP/$name.rec" --trigger none --duration 0.3 -p "$pid" \
		>/dev/null 2>"$err"
	RC=$?
	end_bg "$pid"
	if blocked "$RC"; then
		fail "$name" "the recorder blocked (perf opened the attacker's name)"
	elif [ "$RC" -ne 0 ]; then
		fail "$name" "exit $RC: $(first_lines "$err")"
	else
		return 0
	fi
	return 1
}

# attach_ids NAME: the recording of attach_trap lists the library's build id
# (/bin/true's), read from the mapped file; returns 1 after a FAIL.
attach_ids() {
	local want
	want=$(readelf -n "$(readlink -f /bin/true)" | awk '/Build ID/ { print $3 }')
	"$CONVERT" --dump=recording "$TMP/$1.rec" >"$TMP/$1.dump" 2>&1
	if ! grep -q "^perf.command.[0-9]*=--no-buildid$" "$TMP/$1.dump" ||
		grep -q "^perf.command.[0-9]*=--buildid-mmap$" "$TMP/$1.dump"; then
		fail "$1" "perf record ran without --no-buildid, or with --buildid-mmap: $(grep '^perf.command' "$TMP/$1.dump" | tr '\n' ' ')"
	elif ! grep -A1 -Fx "$(grep -F "=$LIB (deleted)" "$TMP/$1.dump" | head -1)" "$TMP/$1.dump" |
		grep -q "build_id=$want$"; then
		fail "$1" "record.json lists no build id $want for $LIB (deleted): $(grep '^buildids' "$TMP/$1.dump" | tr '\n' ' ')"
	else
		return 0
	fi
	return 1
}

# attach_fifos NAME MODE: attach_trap NAME MODE (fifo, own) records at once,
# the FIFOs left as they were, the library's build id listed.
attach_fifos() {
	requires "$1" cc binutils || return
	attach_trap "$1" "$2" || return
	if [ ! -p "$LIB" ] || [ ! -p "$LIB (deleted)" ]; then
		fail "$1" "the FIFOs changed: $(ls -l "$HOME_A" | grep attach | tr '\n' '|')"
	elif attach_ids "$1"; then
		ok "$1"
	fi
	rm -rf "$TMP/$1.rec"
}

rec_attach_fifo() {
	attach_fifos rec-attach-fifo fifo
}

# Root's own process maps the attacker's library, which she then replaces
# by FIFOs (her directory): perf would open that name too.
rec_attach_own() {
	attach_fifos rec-attach-own own
}

# The attacker's links lead to a FIFO only root may open, which root's perf
# would wait on (opened by name: it followed the link); then the attacker
# rebuilds the program, and root's conversion says so.
rec_attach_link() {
	local fifo="$ROOTONLY/attach.fifo" err="$TMP/rec-attach-link.convert"
	requires rec-attach-link cc binutils || return
	mkfifo -m 600 "$fifo"
	attach_trap rec-attach-link "link:$fifo" || { rm -f "$fifo"; return; }
	rm -f "$fifo"
	attach_ids rec-attach-link || return
	as_attacker sh -c 'cp "$2" "$1.new" && mv "$1.new" "$1"' sh "$PROG" "$(readlink -f /bin/true)"
	timeout -k 5 60 "$CONVERT" -q "$TMP/rec-attach-link.rec" -o /dev/null 2>"$err"
	if ! grep -q "^snaptrace-convert: warning: $PROG: changed since the recording (build id [0-9a-f]*, the file's now [0-9a-f]*): the recording names its build id" "$err"; then
		fail rec-attach-link "the conversion said nothing of the rebuilt $PROG: $(first_lines "$err")"
	else
		ok rec-attach-link
	fi
	rm -rf "$TMP/rec-attach-link.rec"
}

# lib_swapped NAME MODE: the attacker's process dlopens her library, then
# (MODE "fifo") leaves FIFOs at its name and at "NAME (deleted)", or
# ("link") links to a root-only library there, whose her_fn is at another
# offset, beside a function of its own; root lists the process's functions
# and records it with --trigger LIB:her_fn (the path, then the short name):
# everything is the mapped library's, nothing the root-only one's.
lib_swapped() {
	local name=$1 mode=$2 lib="$HOME_A/lib$1.so" secret="$TMP/lib$1-secret.so"
	local fn=${SECRET_WORD//-/_}_fn pid="" rc off want spec
	requires "$name" cc uprobes python3 || return
	printf 'int her_fn(void) { return 1; }\n' | cc -x c -shared -fPIC -o "$TMP/$name.lib" - &&
		printf 'static volatile char pad[65536] = { 1 };\nint %s(void) { return pad[0]; }\nint her_fn(void) { return %s() + pad[1]; }\n' \
			"$fn" "$fn" | cc -x c -shared -fPIC -O0 -falign-functions=4096 -o "$secret" - &&
		chmod 600 "$secret" || { fail "$name" "cannot build the libraries"; return; }
	as_attacker sh -c 'cat >"$1"' sh "$lib" <"$TMP/$name.lib"
	printf '%s\n' '#include <dlfcn.h>' '#include <stdio.h>' '#include <string.h>' \
		'#include <sys/stat.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) { char del[4096];' \
		'if (argc < 4 || !dlopen(argv[1], RTLD_NOW)) return 1;' \
		'snprintf(del, sizeof(del), "%s (deleted)", argv[1]);' \
		'if (unlink(argv[1])) return 1;' \
		'if (!strcmp(argv[2], "fifo") && (mkfifo(argv[1], 0644) || mkfifo(del, 0644))) return 1;' \
		'if (!strcmp(argv[2], "link") && (symlink(argv[3], argv[1]) || symlink(argv[3], del)))' \
		'return 1;' \
		'printf("%d\n", (int)getpid()); fflush(stdout); pause(); return 0; }' |
		cc -x c -o "$TMP/$name.prog" - -ldl 2>"$TMP/$name.err" ||
		{ fail "$name" "cannot build the program: $(first_lines "$TMP/$name.err")"; return; }
	start_printing "$name" "$TMP/$name.err" "${ATTACKER[@]}" "$TMP/$name.prog" "$lib" "$mode" \
		"$secret" || return
	pid=$PID
	want=$(nm -D "$TMP/$name.lib" | awk '$3 == "her_fn" { print $1 }')
	for spec in "$lib:her_fn" "lib$name:her_fn"; do
		rm -rf "$TMP/$name.rec"
		timeout -k 5 20 "$RECORD" -q -o "$TMP/$name.rec" -p "$pid" --trigger "$spec" \
			--duration 0.3 >/dev/null 2>"$TMP/$name.rec.err"
		rc=$?
		if blocked "$rc" || [ "$rc" -ne 0 ]; then
			fail "$name" "--trigger $spec: exit $rc: $(first_lines "$TMP/$name.rec.err")"
		elif grep -rq "$secret" "$TMP/$name.rec/record.json" "$TMP/$name.rec.err"; then
			fail "$name" "--trigger $spec: the recording names the root-only library: $(grep -o "[^\"]*$secret[^\"]*" "$TMP/$name.rec/record.json" | head -n 1)"
		elif ! off=$(python3 - "$TMP/$name.rec/record.json" "$lib (deleted)" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["trigger"]
print(t["file_offset"])
sys.exit(t["file"] != sys.argv[2] or t["symbol"] != "her_fn")
PY
		) || [ "$off" -ne "$((16#$want))" ]; then
			fail "$name" "--trigger $spec: expected her_fn of '$lib (deleted)' at offset $((16#$want)): $(grep -A6 '"trigger"' "$TMP/$name.rec/record.json" | tr '\n' ' ')"
		else
			continue
		fi
		rc=1
		break
	done
	if [ "$rc" -eq 0 ]; then
		timeout -k 5 20 "$FRONT" symbols "$pid" her_fn >"$TMP/$name.out" 2>&1
		rc=$?
		if blocked "$rc" || grep -q "$fn\|$secret" "$TMP/$name.out"; then
			fail "$name" "symbols: exit $rc, the root-only library listed: $(first_lines "$TMP/$name.out")"
		elif ! grep -q "^her_fn	her_fn	$lib (deleted)	0x0*${want#"${want%%[!0]*}"}\$" "$TMP/$name.out"; then
			fail "$name" "symbols: expected her_fn of '$lib (deleted)' at 0x$want: $(first_lines "$TMP/$name.out")"
		else
			ok "$name"
		fi
	fi
	end_bg "$pid"
	rm -rf "$TMP/$name.rec" "$secret"
}

rec_lib_fifo() {
	lib_swapped rec-lib-fifo fifo
}

rec_lib_link() {
	lib_swapped rec-lib-link link
}

# Root launches the attacker's program from her directory, which she
# replaces by FIFOs as soon as its process is stopped at its exec (state
# 't', its comm the program's name: /proc/PID/stat, which anyone reads),
# matched by its argv[0], the program's path in this suite's own scratch
# directory (a name alone also matched another suite's launch running at
# once: make test-stress beside make test swapped the program too early).
rec_launch_fifo() {
	local prog="$HOME_A/launchfifo" d="$TMP/rec-launch-fifo.rec" err="$TMP/rec-launch-fifo.err"
	local watcher rc want
	requires rec-launch-fifo python3 binutils || return
	as_attacker sh -c 'cat >"$1" && chmod 755 "$1"' sh "$prog" <"$(readlink -f /bin/sleep)"
	want=$(readelf -n "$(readlink -f /bin/sleep)" | awk '/Build ID/ { print $3 }')
	"${ATTACKER[@]}" /usr/bin/python3 - "$prog" <<'PY' 2>"$TMP/rec-launch-fifo.watch" &
import glob, os, sys, time
prog = sys.argv[1]
end = time.time() + 20
while time.time() < end:
    for f in glob.glob("/proc/[0-9]*/stat"):
        try:
            st = open(f).read()
            argv = open(f[:-4] + "cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        # this test's own launch only (its program's path, under this
        # suite's scratch directory), never another suite's at once
        if argv[0] != os.fsencode(prog):
            continue
        if st[st.index("(") + 1:st.rindex(")")] == "launchfifo" and st[st.rindex(")") + 2] == "t":
            os.unlink(prog)
            os.mkfifo(prog, 0o644)
            os.mkfifo(prog + " (deleted)", 0o644)
            sys.exit(0)
sys.exit("no launched process seen")
PY
	watcher=$!
	sleep 0.2
	timeout -k 5 20 "$RECORD" -q -o "$d" --keep-binaries --trigger none --duration 0.3 -- "$prog" 5 \
		>/dev/null 2>"$err"
	rc=$?
	wait "$watcher"
	"$CONVERT" --dump=recording "$d" >"$TMP/rec-launch-fifo.dump" 2>&1
	if blocked "$rc"; then
		fail rec-launch-fifo "the recorder blocked (perf opened the attacker's name)"
	elif [ "$rc" -ne 0 ]; then
		fail rec-launch-fifo "exit $rc: $(first_lines "$err")"
	elif [ ! -p "$prog" ]; then
		fail rec-launch-fifo "the attacker did not swap the program: $(first_lines "$TMP/rec-launch-fifo.watch")"
	elif ! grep -q "^perf.command.[0-9]*=--no-buildid$" "$TMP/rec-launch-fifo.dump" ||
		grep -q "^perf.command.[0-9]*=--buildid-mmap$" "$TMP/rec-launch-fifo.dump"; then
		fail rec-launch-fifo "perf record ran without --no-buildid, or with --buildid-mmap: $(grep '^perf.command' "$TMP/rec-launch-fifo.dump" | tr '\n' ' ')"
	elif ! grep -A1 -E "^buildids\.[0-9]+\.file=$prog( \(deleted\))?$" "$TMP/rec-launch-fifo.dump" |
		grep -q "build_id=$want$"; then
		fail rec-launch-fifo "record.json lists no build id $want for $prog: $(grep '^buildids' "$TMP/rec-launch-fifo.dump" | tr '\n' ' ')"
	elif [ "$(wc -l <"$err")" -ne 1 ] || ! grep -q "^snaptrace-record: warning: --keep-binaries: no binary kept: another user may change a name of what the target maps" "$err"; then
		fail rec-launch-fifo "expected one warning that no binary is kept: $(first_lines "$err")"
	else
		ok rec-launch-fifo
	fi
	rm -rf "$d"
	rm -f "$prog" "$prog (deleted)"
}

# rec_maps NAME DIR PIDS...: root records the attacker's PIDS for 0.3 s into DIR.
rec_maps() {
	local name=$1 d=$2 list
	shift 2
	list=$(IFS=,; echo "$*")
	timeout -k 5 60 "$RECORD" -o "$d" --trigger none --duration 0.3 -p "$list" \
		>/dev/null 2>"$TMP/$name.err"
}

rec_perfmap_total() {
	local pids=() i rc
	for ((i = 0; i < 2; i++)); do
		"${ATTACKER[@]}" sleep 60 &
		pids+=($!)
	done
	as_attacker_in_tmp sh -c 'for p; do printf "%x 10 jit_%s\n" 4096 "$p" >/tmp/perf-$p.map; done
		truncate -s 256M /tmp/perf-$2.map' sh "${pids[@]}"
	rec_maps rec-perfmap-total "$TMP/perfmap-bytes" "${pids[@]}"
	rc=$?
	end_bg "${pids[@]}"
	for i in "${pids[@]}"; do rm -f "/tmp/perf-$i.map"; done
	if [ "$rc" -ne 0 ]; then
		fail rec-perfmap-total "exit $rc: $(first_lines "$TMP/rec-perfmap-total.err")"
	elif [ -e "$TMP/perfmap-bytes/perf-${pids[1]}.map" ] || [ ! -s "$TMP/perfmap-bytes/perf-${pids[0]}.map" ]; then
		fail rec-perfmap-total "expected the small map kept and the 256 MiB one not: $(ls -l "$TMP/perfmap-bytes" | grep perf- | tr '\n' '|')"
	elif [ "$(grep -c 'not kept' "$TMP/rec-perfmap-total.err")" -ne 1 ] ||
		! grep -q "^snaptrace-record: warning: 1 JIT perf map (268435456 bytes) not kept in the recording: more than 32 maps or 256 MiB in all" "$TMP/rec-perfmap-total.err"; then
		fail rec-perfmap-total "expected one warning of what was left out: $(first_lines "$TMP/rec-perfmap-total.err")"
	else
		ok rec-perfmap-total
	fi
}

in_perfmap_big() {
	local pid kib rc
	"${ATTACKER[@]}" sleep 60 &
	pid=$!
	as_attacker_in_tmp truncate -s 256M "/tmp/perf-$pid.map"
	sed "s|(/opt/app)|(/tmp/perf-$pid.map)|g" "$IN" >"$TMP/perfmap-big.txt"
	kib=$(maxrss timeout -k 5 60 "$CONVERT" -q "$TMP/perfmap-big.txt" -o "$TMP/perfmap-big.fxt" \
		3>&1 2>"$TMP/in-perfmap-big.err")
	rc=$?
	end_bg "$pid"
	rm -f "/tmp/perf-$pid.map"
	if [ "$rc" -ne 0 ]; then
		fail in-perfmap-big "exit $rc: $(first_lines "$TMP/in-perfmap-big.err")"
	elif [ "$kib" -ge $((160 * 1024)) ]; then
		fail in-perfmap-big "the converter held $((kib / 1024)) MiB (it read the map)"
	elif ! "$CONVERT" --dump=slices "$TMP/perfmap-big.fxt" >"$TMP/perfmap-big.slices" 2>&1 ||
		! slices_match "$TMP/perfmap-big.slices" "$EXPECTED" >/dev/null; then
		fail in-perfmap-big "wrong trace: $(first_lines "$TMP/perfmap-big.slices")"
	else
		ok in-perfmap-big
	fi
}

rec_probe_swapped() {
	local d="$HOME_A/probe" err="$TMP/rec-probe-swapped.err" n i rc swapper why= recorded=0
	requires rec-probe-swapped gcc uprobes || return
	if ! gcc -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -pthread -Wl,-z,now \
		-o "$TMP/slowcall_target" "$SNAPTRACE_TOP/tests/record/slowcall_target.c" 2>"$err"; then
		fail rec-probe-swapped "cannot build slowcall_target.c: $(first_lines "$err")"
		return
	fi
	as_attacker mkdir -m 755 "$d"
	as_attacker cp "$TMP/slowcall_target" "$d/real"
	as_attacker cp "$TMP/slowcall_target" "$d/prog"
	# the name is the program, then a FIFO, then the program again...
	as_attacker perl -MPOSIX=mkfifo -e '
		chdir $ARGV[0] or die;
		until (-e "stop") {
			link("real", "p.new") and rename("p.new", "prog");
			select(undef, undef, undef, 0.0002);
			mkfifo("f.new", 0644) and rename("f.new", "prog");
			select(undef, undef, undef, 0.0002);
		}' "$d" 2>"$TMP/rec-probe-swapped.swapper" &
	swapper=$!
	# the swapper runs: the name seen as a FIFO (once: a second look may
	# find the program back)
	why="the name was never seen swapped for a FIFO"
	for i in $(seq 200); do
		[ -p "$d/prog" ] && why= && break
		sleep 0.01
	done
	# rounds until N recorded (about one in four: the name is the FIFO at
	# the read or at the exec in the others), at most 60 per recording: a
	# machine loaded 15 deep recorded 2 of 90 once (the swapper off the CPU
	# for long stretches)
	n=$(stress_count 3 30)
	for i in $(seq $((n * 60))); do
		[ -z "$why" ] || break
		rm -rf "$TMP/probe-rec"
		timeout -k 5 60 "$RECORD" -q -o "$TMP/probe-rec" --trigger timed \
			--trigger-slower-than 10ms -- "$d/prog" seq 3 1 >/dev/null 2>"$err"
		rc=$?
		if blocked "$rc"; then
			why="the recorder blocked"
		elif grep -q "cannot open the uprobe trigger" "$err"; then
			why="the uprobe was opened by the name, which led to the FIFO"
		elif [ "$rc" -ne 0 ] && ! grep -q "$d/prog" "$err"; then
			why="exit $rc without naming the program"
		elif [ "$rc" -eq 0 ] && ! grep -q '"hits_total": [1-9]' "$TMP/probe-rec/record.json"; then
			# the program run is the file read (exec of the FIFO fails):
			# its 20 ms call fires a uprobe on that file
			why="recorded, but the 20 ms call fired no trigger: the uprobe is not on the program that ran"
		fi
		[ -z "$why" ] || break
		[ "$rc" -eq 0 ] && recorded=$((recorded + 1))
		[ "$recorded" -lt "$n" ] || break
	done
	as_attacker touch "$d/stop"
	wait "$swapper"
	if [ -z "$why" ] && [ -s "$TMP/rec-probe-swapped.swapper" ]; then
		why="the swapper failed: $(first_lines "$TMP/rec-probe-swapped.swapper")"
	elif [ -z "$why" ] && [ "$recorded" -lt "$n" ]; then
		why="$recorded of $i rounds recorded, expected $n"
	fi
	if [ -n "$why" ]; then
		fail rec-probe-swapped "round $i: $why: $(first_lines "$err")"
	else
		ok rec-probe-swapped
	fi
}

# attacker_program NAME BIN [SH]: the C source on stdin built by root, then
# copied by the attacker to BIN, and SH (an sh command on "$1", BIN) run as
# the attacker; returns 1 after a FAIL of NAME.
attacker_program() {
	if ! cc -x c -o "$TMP/$1.prog" - 2>"$TMP/$1.err"; then
		fail "$1" "cannot build the program (cc): $(first_lines "$TMP/$1.err")"
		return 1
	fi
	as_attacker sh -c 'cat >"$1" && chmod 755 "$1" && '"${3:-:}" sh "$2" <"$TMP/$1.prog"
}

rec_keep_sparse() {
	local bin="$BINS_A/sparse" d="$TMP/rec-sparse" rc kib
	requires rec-keep-sparse cc || return
	install -o "$AUID" -g "$AGID" /dev/null "$bin"
	spin_source sparse_work 300 | attacker_program rec-keep-sparse "$bin" 'truncate -s 5G "$1"' || return
	timeout -k 5 60 "$RECORD" -q -o "$d" --keep-binaries --trigger none -- "$bin" \
		>/dev/null 2>"$TMP/rec-keep-sparse.err"
	rc=$?
	kib=$(du -sk "$d" 2>/dev/null | cut -f1)
	if blocked "$rc" || [ "${kib:-0}" -gt $((100 * 1024)) ]; then
		fail rec-keep-sparse "exit $rc, the recording takes ${kib:-0} KiB: the hole was copied"
	elif [ "$rc" -ne 0 ]; then
		fail rec-keep-sparse "exit $rc: $(first_lines "$TMP/rec-keep-sparse.err")"
	elif ! grep -q "$bin: not kept in $d/binaries: 5368709120 bytes, past the 4 GiB the kept binaries may take in all" \
		"$TMP/rec-keep-sparse.err"; then
		fail rec-keep-sparse "no warning naming the binary not kept: $(first_lines "$TMP/rec-keep-sparse.err")"
	else
		ok rec-keep-sparse
	fi
	rm -rf "$d"
}

rec_keep_fifo() {
	local bin="$BINS_A/selffifo" d="$TMP/rec-keep" rc
	requires rec-keep-fifo cc || return
	install -o "$AUID" -g "$AGID" /dev/null "$bin"
	printf '%s\n' '#include <sys/stat.h>' '#include <time.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) { struct timespec t, n; volatile unsigned long x = 0;' \
		'clock_gettime(CLOCK_MONOTONIC, &t); do { x++; clock_gettime(CLOCK_MONOTONIC, &n); }' \
		'while ((n.tv_sec - t.tv_sec) * 1000000000L + n.tv_nsec - t.tv_nsec < 300000000L);' \
		'(void)argc; unlink(argv[0]); return mkfifo(argv[0], 0644) != 0; }' |
		attacker_program rec-keep-fifo "$bin" || return
	timeout -k 5 60 "$RECORD" -q -o "$d" --keep-binaries --trigger none -- "$bin" \
		>/dev/null 2>"$TMP/rec-keep-fifo.err"
	rc=$?
	if blocked "$rc"; then
		fail rec-keep-fifo "the recorder blocked (perf buildid-cache on the FIFO)"
	elif [ ! -p "$bin" ]; then
		fail rec-keep-fifo "the program left no FIFO (exit $rc): $(first_lines "$TMP/rec-keep-fifo.err")"
	elif ! grep -q "$bin: not kept in $d/binaries: a FIFO, expected a regular file" "$TMP/rec-keep-fifo.err"; then
		fail rec-keep-fifo "exit $rc, no warning naming the binary not kept: $(first_lines "$TMP/rec-keep-fifo.err")"
	else
		ok rec-keep-fifo
	fi
}

rec_keep_swapped() {
	local bin="$BINS_A/selflink" d="$TMP/rec-keep-swap" rc secret="$TMP/secretbin/prog" f
	requires rec-keep-swapped cc || return
	install -o "$AUID" -g "$AGID" /dev/null "$bin"
	if ! printf '%s\n' '#include <time.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) { struct timespec t, n; volatile unsigned long x = 0;' \
		'clock_gettime(CLOCK_MONOTONIC, &t); do { x++; clock_gettime(CLOCK_MONOTONIC, &n); }' \
		'while ((n.tv_sec - t.tv_sec) * 1000000000L + n.tv_nsec - t.tv_nsec < 300000000L);' \
		'unlink(argv[0]); return argc < 2 || symlink(argv[1], argv[0]) != 0; }' |
		cc -x c -o "$TMP/selflink" - 2>"$TMP/rec-keep-swapped.err"; then
		fail rec-keep-swapped "cannot build the program (cc): $(first_lines "$TMP/rec-keep-swapped.err")"
		return
	fi
	mkdir -m 700 "$TMP/secretbin"
	cp "$(readlink -f /bin/true)" "$secret"
	chmod 700 "$secret"
	as_attacker sh -c 'cat >"$1" && chmod 755 "$1"' sh "$bin" <"$TMP/selflink"
	timeout -k 5 60 "$RECORD" -q -o "$d" --keep-binaries --trigger none -- "$bin" "$secret" \
		>/dev/null 2>"$TMP/rec-keep-swapped.err"
	rc=$?
	for f in $(find "$d/binaries" -type f 2>/dev/null); do
		if cmp -s "$f" "$secret"; then
			fail rec-keep-swapped "the root-only binary was copied into the recording: $f"
			return
		fi
	done
	if [ "$rc" -ne 0 ]; then
		fail rec-keep-swapped "exit $rc: $(first_lines "$TMP/rec-keep-swapped.err")"
	elif [ ! -L "$bin" ]; then
		fail rec-keep-swapped "the program left no link: $(first_lines "$TMP/rec-keep-swapped.err")"
	elif ! grep -q "$bin: not kept in $d/binaries: changed since the recording" "$TMP/rec-keep-swapped.err"; then
		fail rec-keep-swapped "no warning naming the binary not kept: $(first_lines "$TMP/rec-keep-swapped.err")"
	else
		ok rec-keep-swapped
	fi
}

# attacker_recording DIR FILE: the attacker's recording directory DIR whose
# record.json lists one snapshot FILE (made by the caller).
attacker_recording() {
	as_attacker mkdir -p "$1"
	as_attacker sh -c 'cat >"$1/record.json"' sh "$1" <<EOF
{
  "format": "snaptrace-record 1",
  "pids": [100],
  "threads": [{"pid": 100, "tid": 100, "comm": "app${ESC}]0;pwned${BEL}x${RLO}y"}],
  "trigger": null,
  "hits": [],
  "snapshots": [
    {"file": "$2", "reason": "interrupt", "time_ns": 6000000000, "freeze_ms": 1.0, "ms": 2.0}
  ],
  "end": "interrupt", "end_ns": 6000000000
}
EOF
}

# converts_none NAME DIR: root converts the attacker's recording DIR: exit 1
# at once, DIR/FILE named as left out with WHY, the secret never shown.
converts_none() {
	local name=$1 d=$2 why=$3 rc
	timeout -k 5 20 "$CONVERT" "$d" -o "$TMP/$name.fxt" >/dev/null 2>"$TMP/$name.err"
	rc=$?
	if blocked "$rc"; then
		fail "$name" "the converter blocked"
	elif [ "$rc" -ne 1 ]; then
		fail "$name" "exit $rc, expected 1: $(first_lines "$TMP/$name.err")"
	elif ! grep -q "left out: $why" "$TMP/$name.err"; then
		fail "$name" "no line 'left out: $why': $(first_lines "$TMP/$name.err")"
	elif grep -q "$SECRET_WORD" "$TMP/$name.err"; then
		fail "$name" "the root-only file's text was shown"
	elif clean_text "$name" "$TMP/$name.err"; then
		return 0
	fi
	return 1
}

in_snapshot_link() {
	local d="$HOME_A/rec-link"
	attacker_recording "$d" perf.data.1
	as_attacker ln -s "$SECRET" "$d/perf.data.1"
	converts_none in-snapshot-link "$d" "a symbolic link, not followed here" && ok in-snapshot-link
}

in_snapshot_fifo() {
	local d="$HOME_A/rec-fifo"
	attacker_recording "$d" perf.data.1
	as_attacker mkfifo "$d/perf.data.1"
	converts_none in-snapshot-fifo "$d" "a FIFO, expected a regular file" && ok in-snapshot-fifo
}

in_json_fifo() {
	local d="$HOME_A/rec-json-fifo" rc
	as_attacker mkdir "$d"
	as_attacker mkfifo "$d/record.json"
	timeout -k 5 20 "$CONVERT" "$d" -o "$TMP/in-json-fifo.fxt" 2>"$TMP/in-json-fifo.err"
	rc=$?
	! blocked "$rc" || { fail in-json-fifo "the converter blocked"; return; }
	refuses "$rc" in-json-fifo 1 "$d/record.json: a FIFO, expected a regular file" \
		"$TMP/in-json-fifo.err" && ok in-json-fifo
}

in_hardlink() {
	local d="$HOME_A/rec-hard"
	attacker_recording "$d" perf.data.1
	ln "$SECRET" "$d/perf.data.1"	# what the attacker does where fs.protected_hardlinks=0
	converts_none in-hardlink "$d" "a hard link to a file of uid 0, not of the directory's owner" &&
		ok in-hardlink
}

in_killed_link() {
	local d="$HOME_A/rec-killed"
	attacker_recording "$d" perf.data.1
	as_attacker sed -i 's/^  "snapshots": \[/  "snapshots": [],"was": [/; s/"end": "interrupt"/"end": "none"/' \
		"$d/record.json"
	as_attacker ln -s "$SECRET" "$d/perf.data"
	converts_none in-killed-link "$d" "a symbolic link" && ok in-killed-link
}

# The attacker's trace: a thread and a function named with escape sequences,
# a bell, a bidi override.
EVIL_TRACE="$HOME_A/evil.fxt"
make_evil_trace() {
	local comm="ap${ESC}]0;pwned${BEL}p" fn="ev${ESC}[2J${RLO}il"
	{
		printf '%16s %6s/%-6s %s:          1  branches:u:   %-8s %16s %s (/opt/app) => %16s %s (/opt/app)\n' \
			"$comm" 300 300 5.000000100 call 401010 main+0x10 402000 "$fn+0x0"
		printf '%16s %6s/%-6s %s:          1  branches:u:   %-8s %16s %s (/opt/app) => %16s %s (/opt/app)\n' \
			"$comm" 300 300 5.000000300 return 402010 "$fn+0x10" 401015 main+0x15
	} | as_attacker sh -c 'cat >"$1"' sh "$HOME_A/evil.txt"
	as_attacker "$CONVERT" -q "$HOME_A/evil.txt" -o "$EVIL_TRACE" 2>/dev/null
}

esc_stats() {
	local f all=0
	for f in table csv json; do
		if ! "$STATS" --by-thread --format "$f" "$EVIL_TRACE" >"$TMP/esc-stats.$f" 2>"$TMP/esc-stats.$f.err"; then
			fail esc-stats "--format $f: exit $?: $(first_lines "$TMP/esc-stats.$f.err")"
			return
		fi
		cat "$TMP/esc-stats.$f.err" >>"$TMP/esc-stats.$f"
		clean_text esc-stats "$TMP/esc-stats.$f" || return
		[ "$f" = json ] || grep -qF 'ev\x1b[2J\xe2\x80\xaeil' "$TMP/esc-stats.$f" || all=1
	done
	if ! jq -e '.rows[] | select(.function == "ev\u001b[2J\u202eil")' "$TMP/esc-stats.json" >/dev/null 2>&1 &&
		! jq -e '..|strings|select(test("ev\u001b\\[2J\u202eil"))' "$TMP/esc-stats.json" >/dev/null 2>&1; then
		fail esc-stats "the JSON does not read back the function's name: $(head -c 300 "$TMP/esc-stats.json")"
	elif [ "$all" -ne 0 ]; then
		fail esc-stats "a table does not show the name escaped: $(first_lines "$TMP/esc-stats.table")"
	else
		ok esc-stats
	fi
}

# The attacker's trace whose thread and functions are named as formulas a
# spreadsheet root opens stats' CSV in would run.
esc_csv_formula() {
	local comm="=cmd|'/C calc'!A0" f1="=1+cmd|'/C calc'!A0" f2="@SUM(1;2)" line bad
	line='%16s %6s/%-6s %s:          1  branches:u:   %-8s %16s %s (/opt/app) => %16s %s (/opt/app)\n'
	{
		printf "$line" "$comm" 300 300 5.000000100 call 401010 main+0x10 402000 "$f1+0x0"
		printf "$line" "$comm" 300 300 5.000000200 call 402004 "$f1+0x4" 403000 "$f2+0x0"
		printf "$line" "$comm" 300 300 5.000000250 return 403010 "$f2+0x10" 402008 "$f1+0x8"
		printf "$line" "$comm" 300 300 5.000000300 return 402010 "$f1+0x10" 401015 main+0x15
	} | as_attacker sh -c 'cat >"$1"' sh "$HOME_A/formula.txt"
	as_attacker "$CONVERT" -q "$HOME_A/formula.txt" -o "$HOME_A/formula.fxt" 2>/dev/null
	if ! "$STATS" --by-thread --format csv "$HOME_A/formula.fxt" >"$TMP/esc-csv-formula.csv" \
		2>"$TMP/esc-csv-formula.err"; then
		fail esc-csv-formula "exit $?: $(first_lines "$TMP/esc-csv-formula.err")"
		return
	fi
	bad=$(python3 - "$TMP/esc-csv-formula.csv" <<'PY'
import csv, re, sys
text = open(sys.argv[1], newline="").read()
names = 0
for sep in ",;":
    for row in csv.reader(text.splitlines(), delimiter=sep):
        for cell in row:
            names += "cmd|" in cell or "SUM(" in cell
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not re.fullmatch(r"-?[0-9.]+", cell):
                print("separator %r: cell %r" % (sep, cell))
                sys.exit()
if names < 6:
    print("the names are not in the CSV: %r" % text[:300])
PY
)
	if [ -n "$bad" ]; then
		fail esc-csv-formula "a cell starts a formula: $bad"
	elif ! grep -qF "\"'=1+cmd|'/C calc'!A0\"" "$TMP/esc-csv-formula.csv"; then
		fail esc-csv-formula "the function is not shown quoted after a \"'\": $(first_lines "$TMP/esc-csv-formula.csv")"
	else
		ok esc-csv-formula
	fi
}

esc_dump() {
	if ! "$CONVERT" --dump "$EVIL_TRACE" >"$TMP/esc-dump.out" 2>&1; then
		fail esc-dump "exit $?: $(first_lines "$TMP/esc-dump.out")"
	elif clean_text esc-dump "$TMP/esc-dump.out"; then
		if grep -qF 'ap\x1b]0;pwned\x07p' "$TMP/esc-dump.out"; then
			ok esc-dump
		else
			fail esc-dump "the thread's name is not shown escaped"
		fi
	fi
}

esc_convert() {
	local d="$HOME_A/rec-names"
	attacker_recording "$d" perf.data.1
	as_attacker sh -c 'sed "s/ app / ap\x1bc /; 3s/^/bad line \x1b[31m\xff\n/" "$1" >"$2/perf.data.1"' \
		sh "$HOME_A/in.txt" "$d"
	if ! timeout -k 5 20 "$CONVERT" "$d" -o "$TMP/esc-convert.fxt" >/dev/null 2>"$TMP/esc-convert.err"; then
		fail esc-convert "exit $?: $(first_lines "$TMP/esc-convert.err")"
	elif clean_text esc-convert "$TMP/esc-convert.err"; then
		if grep -qF 'ap\x1bc [100]' "$TMP/esc-convert.err" &&
			grep -qF 'bad line \x1b[31m\xff' "$TMP/esc-convert.err"; then
			ok esc-convert
		else
			fail esc-convert "the names are not shown escaped: $(first_lines "$TMP/esc-convert.err")"
		fi
	fi
}

esc_symbols() {
	local bin="$HOME_A/evilsym"
	requires esc-symbols cc binutils || return
	if ! printf 'int f(void) { return 1; }\nint main(void) { return f(); }\n' |
		cc -x c -o "$TMP/evilsym" - 2>"$TMP/esc-symbols.err" ||
		! objcopy --redefine-sym "f=zz${ESC}]0;pwned${BEL}" "$TMP/evilsym" "$TMP/evilsym.out" 2>>"$TMP/esc-symbols.err"; then
		fail esc-symbols "cannot build a binary with such a symbol (cc, objcopy): $(first_lines "$TMP/esc-symbols.err")"
		return
	fi
	as_attacker sh -c 'cat >"$1" && chmod 755 "$1"' sh "$bin" <"$TMP/evilsym.out"
	if ! timeout -k 5 20 "$FRONT" symbols "$bin" >"$TMP/esc-symbols.out" 2>&1; then
		fail esc-symbols "exit $?: $(first_lines "$TMP/esc-symbols.out")"
	elif clean_text esc-symbols "$TMP/esc-symbols.out"; then
		if grep -qF 'zz\x1b]0;pwned\x07' "$TMP/esc-symbols.out"; then
			ok esc-symbols
		else
			fail esc-symbols "the symbol is not shown escaped: $(first_lines "$TMP/esc-symbols.out")"
		fi
	fi
}

symbols_tsv() {
	local bin="$HOME_A/tsvsym" out="$TMP/symbols-tsv.out" formula="=cmd|' /C calc'!A0" tab
	local bad
	tab=$(printf 'tab\tnl\nx')
	requires symbols-tsv cc binutils recording || return
	if ! printf 'int f(void) { return 1; }\nint g(void) { return 2; }\nint h(void) { return 3; }\nint main(void) { return f() + g() + h(); }\n' |
		cc -x c -o "$TMP/tsvsym" - 2>"$TMP/symbols-tsv.err" ||
		! objcopy --redefine-sym "f=$formula" --redefine-sym "g=-[Obj foo]" \
			--redefine-sym "h=$tab" "$TMP/tsvsym" "$TMP/tsvsym.out" 2>>"$TMP/symbols-tsv.err"; then
		fail symbols-tsv "cannot build a binary with such symbols (cc, objcopy): $(first_lines "$TMP/symbols-tsv.err")"
		return
	fi
	as_attacker sh -c 'cat >"$1" && chmod 755 "$1"' sh "$bin" <"$TMP/tsvsym.out"
	timeout -k 5 20 "$FRONT" symbols "$bin" >"$out" 2>"$TMP/symbols-tsv.err"
	bad=$(awk -F '\t' 'NF != 4' "$out")
	if [ -n "$bad" ]; then
		fail symbols-tsv "a line without its four fields: $(printf '%s' "$bad" | head -n 1 | cat -A | cut -c 1-200)"
	elif ! grep -qxF "$formula	$formula	$bin	$(awk -F '\t' -v n="$formula" '$1 == n { print $4 }' "$out")" "$out"; then
		fail symbols-tsv "the formula-like symbol is not printed as it is: $(first_lines "$out")"
	elif ! grep -qF 'tab\x09nl\x0ax	' "$out"; then
		fail symbols-tsv "the TAB and newline are not shown escaped: $(first_lines "$out")"
	elif ! timeout -k 5 30 "$RECORD" -q -o "$TMP/symbols-tsv.rec" \
		--trigger "$(awk -F '\t' '$1 ~ /^-\[/ { print $2 }' "$out")" -- "$bin" 2>"$TMP/symbols-tsv.err" ||
		! grep -qF '"symbol": "-[Obj foo]"' "$TMP/symbols-tsv.rec/record.json"; then
		fail symbols-tsv "--trigger of the printed -[Obj foo] does not find it: $(first_lines "$TMP/symbols-tsv.err")"
	else
		ok symbols-tsv
	fi
}

# snaptrace attach without -p on a terminal (script(1)'s): the list narrowed
# to the attacker's process by typing its marker, then an empty answer.
esc_picker() {
	local victim out="$TMP/esc-picker.out" marker="evil$RANDOM"
	requires esc-picker recording picker_list || return
	"${ATTACKER[@]}" bash -c "exec -a '$marker${ESC}]0;pwned${BEL}${RLO}' sleep 60" &
	victim=$!
	sleep 0.3
	{ sleep 1; echo "$marker"; sleep 1; echo; } |
		timeout -k 5 30 script -qec "'$RECORD' --front-end attach" /dev/null >"$out" 2>&1
	end_bg "$victim"
	# a terminal echoes what is typed (CR LF): only the program's bytes matter
	tr -d '\r' <"$out" >"$out.lf"
	if ! grep -q "$marker" "$out.lf"; then
		fail esc-picker "the picker did not list the process: $(first_lines "$out.lf")"
	elif clean_text esc-picker "$out.lf"; then
		if grep -qF "$marker"'\x1b]0;pwned\x07\xe2\x80\xae' "$out.lf"; then
			ok esc-picker
		else
			fail esc-picker "the command line is not shown escaped: $(grep "$marker" "$out.lf" | head -n 1)"
		fi
	fi
}

pick_impostor() {
	local mine theirs out="$TMP/pick-impostor.out" marker="daemon$RANDOM" user
	requires pick-impostor recording picker_list || return
	bash -c "exec -a '$marker --serve' sleep 60" &
	mine=$!
	"${ATTACKER[@]}" bash -c "exec -a '$marker --serve' sleep 60" &
	theirs=$!
	sleep 0.3
	{ sleep 1; echo "$marker"; sleep 1; echo; } |
		timeout -k 5 30 script -qec "'$RECORD' --front-end attach" /dev/null >"$out" 2>&1
	end_bg "$mine" "$theirs"
	user=$(getent passwd "$AUID" | cut -d: -f1)
	tr -d '\r' <"$out" >"$out.lf"
	if ! grep -q " $mine root sleep  ($marker --serve 60)" "$out.lf" ||
		! grep -q " $theirs ${user:-$AUID} sleep  ($marker --serve 60)" "$out.lf"; then
		fail pick-impostor "the rows do not name who started each: $(grep -a "$marker" "$out.lf" | head -n 2 | tr '\n' '|')"
	else
		ok pick-impostor
	fi
}

# pick_reused: root's `snaptrace attach` picks root's process by its marker
# (script(1)'s terminal replaced by a pty of the driver's) in a pid
# namespace of its own, where the driver is process 1 and gives the
# attacker's process the pid just freed (ns_last_pid).
pick_reused() {
	local out="$TMP/pick-reused.out" rc
	requires pick-reused recording picker_list pid_namespace python3 || return
	timeout -k 5 60 unshare --pid --fork --mount-proc python3 - "$RECORD" "$TMP/pick-reused.d" \
		"$AUID" >"$out" 2>&1 <<'PY'
import os, pty, select, subprocess, sys, time
record, outdir, auid = sys.argv[1], sys.argv[2], sys.argv[3]
marker = "picked%d" % os.getppid()
prompt = b"nothing to cancel: "
victim = subprocess.Popen(["bash", "-c", "exec -a '%s' sleep 60" % marker])
# its argv[0] the marker: exec'd (bash's own command line holds it too)
while open("/proc/%d/cmdline" % victim.pid, "rb").read().split(b"\0")[0] != marker.encode():
    time.sleep(0.01)
master, slave = pty.openpty()
r, w = os.pipe()
rec = subprocess.Popen([record, "--front-end", "attach", "--duration", "0.3", "-d", outdir],
                       stdin=slave, stdout=subprocess.DEVNULL, stderr=w)
os.close(slave)
err = b""
def until(pattern, seconds=10):
    global err
    end = time.time() + seconds
    while pattern not in err and time.time() < end:
        for fd in select.select([r, master], [], [], 0.1)[0]:
            data = os.read(fd, 65536)
            if fd == r:
                err += data
    return pattern in err
if not until(prompt):
    sys.exit("no prompt: %r" % err[-300:])
os.write(master, marker.encode() + b"\n")
err = b""
if not until(prompt) or b" %d root " % victim.pid not in err:
    sys.exit("the list does not show the victim: %r" % err[-300:])
# the pipe full: the recorder's next line ("attaching to process N") waits
full = os.open("/proc/self/fd/%d" % w, os.O_WRONLY | os.O_NONBLOCK)
try:
    while True:
        os.write(full, b"x" * 4096)
except BlockingIOError:
    pass
os.close(w)
os.write(master, b"1\n")
end = time.time() + 10
while "pipe_write" not in open("/proc/%d/wchan" % rec.pid).read() and time.time() < end:
    time.sleep(0.01)
victim.kill()
victim.wait()
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(victim.pid - 1))
impostor = subprocess.Popen(["setpriv", "--reuid", auid, "--regid", auid, "--clear-groups",
                             "bash", "-c", "exec -a '%s' sleep 60" % marker])
if impostor.pid != victim.pid:
    impostor.kill()
    sys.exit("the impostor got pid %d, not %d" % (impostor.pid, victim.pid))
os.close(full)
err = b""
while True:
    ready = select.select([r, master], [], [], 30)[0]
    if not ready:
        break
    if r in ready:
        data = os.read(r, 65536)
        if not data:
            break
        err += data
    if master in ready:
        try:
            os.read(master, 65536)
        except OSError:
            pass
rc = rec.wait()
impostor.kill()
impostor.wait()
print("pid %d exit %d" % (victim.pid, rc))
sys.stdout.write(err.lstrip(b"x").decode(errors="replace"))
PY
	rc=$?
	if blocked "$rc" || [ "$rc" -ne 0 ]; then
		fail pick-reused "the driver: exit $rc: $(first_lines "$out")"
	elif ! grep -q '^pid [0-9]* exit 1$' "$out"; then
		fail pick-reused "expected exit 1 (refused): $(first_lines "$out")"
	elif [ "$(grep -c . "$out")" -ne 3 ] ||
		! grep -Eq "^snaptrace: attach: process $(sed -n 's/^pid \([0-9]*\) .*/\1/p' "$out") ended since it was picked \(its pid may be another process's now\): not attached\$" "$out"; then
		fail pick-reused "expected the attaching line and one error naming the pid: $(first_lines "$out")"
	elif [ -e "$TMP/pick-reused.d" ]; then
		fail pick-reused "a recording was made: $(ls "$TMP/pick-reused.d" | tr '\n' ' ')"
	else
		ok pick-reused
	fi
}

# The attacker's running program, removed and replaced by their link at
# "NAME (deleted)" (the text of /proc/PID/exe) to a root-only program.
exe_deleted_link() {
	local bin="$HOME_A/victim" secret="$ROOTONLY/secret-prog" fn=${SECRET_WORD//-/_}_fn pid i rc
	attacker_program exe-deleted-link "$bin" <<<'#include <unistd.h>
int victim_fn(void) { return 1; }
int main(void) { for (;;) pause(); }' || return
	printf 'int %s(void) { return 2; }\nint main(void) { return %s(); }\n' "$fn" "$fn" |
		cc -x c -o "$secret" - && chmod 600 "$secret" || return
	"${ATTACKER[@]}" "$bin" &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(readlink "/proc/$pid/exe")" = "$bin" ] && break
		sleep 0.02
	done
	as_attacker sh -c 'rm "$1" && ln -s "$2" "$1 (deleted)"' sh "$bin" "$secret"
	timeout -k 5 20 "$FRONT" symbols "$pid" >"$TMP/exe-deleted-link.out" 2>&1
	timeout -k 5 60 "$RECORD" -q -o "$TMP/exe-rec" -p "$pid" --trigger victim_fn --duration 0.3 \
		>/dev/null 2>"$TMP/exe-deleted-link.err"
	rc=$?
	end_bg "$pid"
	if grep -q "$fn\|$secret" "$TMP/exe-deleted-link.out"; then
		fail exe-deleted-link "root listed the root-only program: $(grep -m1 "$fn\|$secret" "$TMP/exe-deleted-link.out")"
	elif ! grep -q "^victim_fn	victim_fn	$bin (deleted)	" "$TMP/exe-deleted-link.out"; then
		fail exe-deleted-link "expected victim_fn of '$bin (deleted)': $(first_lines "$TMP/exe-deleted-link.out")"
	elif [ "$rc" -ne 0 ]; then
		fail exe-deleted-link "attach: exit $rc: $(first_lines "$TMP/exe-deleted-link.err")"
	elif grep -rq "$secret" "$TMP/exe-rec/record.json" "$TMP/exe-deleted-link.err"; then
		fail exe-deleted-link "the recording names the root-only program: $(grep -o "[^\"]*$secret[^\"]*" "$TMP/exe-rec/record.json" | head -n 2 | tr '\n' ' ')"
	elif ! python3 - "$TMP/exe-rec/record.json" "$bin (deleted)" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(not (r["executable"] == sys.argv[2] and r["trigger"]["file"] == sys.argv[2]))
PY
		fail exe-deleted-link "record.json does not name '$bin (deleted)': $(grep -E '"(executable|file)"' "$TMP/exe-rec/record.json" | head -n 3 | tr '\n' ' ')"
	else
		ok exe-deleted-link
	fi
}

mntns_libs() {
	local d="$HOME_A/ns" pid i rc mapped=0
	requires mntns-libs cc user_namespace || return
	as_attacker mkdir "$d"
	for i in right wrong; do
		printf 'int %s_lib_fn(void) { return 1; }\n' "$i" |
			cc -x c -shared -fPIC -o "$TMP/lib$i.so" - 2>"$TMP/mntns-libs.err" || {
			fail mntns-libs "cannot build the libraries: $(first_lines "$TMP/mntns-libs.err")"
			return
		}
	done
	# here libpick.so is the wrong one; in the namespace the right one is bound over it
	as_attacker sh -c 'cat >"$1/libpick.so"; chmod 755 "$1/libpick.so"' sh "$d" <"$TMP/libwrong.so"
	as_attacker sh -c 'cat >"$1/real.so"; chmod 755 "$1/real.so"' sh "$d" <"$TMP/libright.so"
	"${ATTACKER[@]}" unshare -Urm sh -c 'mount --bind "$1/real.so" "$1/libpick.so" &&
		exec env LD_PRELOAD="$1/libpick.so" sleep 60' sh "$d" 2>"$TMP/mntns-libs.err" &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q libpick "/proc/$pid/maps" 2>/dev/null && mapped=1 && break
		sleep 0.02
	done
	timeout -k 5 20 "$FRONT" symbols "$pid" _lib_fn >"$TMP/mntns-libs.out" 2>&1
	timeout -k 5 20 "$RECORD" -q -o "$TMP/mntns-rec" --trigger libpick:right_lib_fn --duration 0.2 \
		-p "$pid" >/dev/null 2>"$TMP/mntns-libs.rec"
	rc=$?
	end_bg "$pid"
	if [ "$mapped" != 1 ]; then
		fail mntns-libs "the attacker's process did not map the library: $(first_lines "$TMP/mntns-libs.err")"
	elif grep -q 'wrong_lib_fn' "$TMP/mntns-libs.out"; then
		fail mntns-libs "root listed the file here as the process's library: $(grep -m1 wrong_lib_fn "$TMP/mntns-libs.out")"
	elif ! grep -q "process $pid is in another mount namespace: its libraries are not read" "$TMP/mntns-libs.out"; then
		fail mntns-libs "no line says why the libraries are not read: $(first_lines "$TMP/mntns-libs.out")"
	else
		refuses "$rc" mntns-libs 1 "process $pid is in another mount namespace: its library 'libpick' is not looked for" \
			"$TMP/mntns-libs.rec" && ok mntns-libs
	fi
}

# kept_recording NAME: DIR, the attacker's copy of root's recording of a
# shell loop (KEPT_SRC), with an empty binaries directory; its shell's
# build id in KEPT_ID, the shell's path in KEPT_EXE.
KEPT_SRC="$TMP/kept-src"
kept_recording() {
	local d="$HOME_A/$1"
	cp -r "$KEPT_SRC" "$d"
	chown -R "$AUID:$AGID" "$d"
	as_attacker mkdir -p "$d/binaries/.build-id/${KEPT_ID:0:2}" "$d/binaries$KEPT_EXE/$KEPT_ID"
	echo "$d"
}

# kept_refused NAME DIR WHY: root converts DIR at once, exit 0, one warning
# that DIR/binaries is not read for WHY, a trace with the shell's samples.
kept_refused() {
	local name=$1 d=$2 why=$3 rc
	timeout -k 5 60 "$CONVERT" "$d" -o "$TMP/$name.fxt" >/dev/null 2>"$TMP/$name.err"
	rc=$?
	if blocked "$rc"; then
		fail "$name" "the converter blocked"
	elif [ "$rc" -ne 0 ]; then
		fail "$name" "exit $rc: $(first_lines "$TMP/$name.err")"
	elif [ "$(grep -c "warning: $d/binaries: the kept binaries are not read: $why" "$TMP/$name.err")" -ne 1 ]; then
		fail "$name" "no one warning 'not read: $why': $(first_lines "$TMP/$name.err")"
	elif ! "$CONVERT" --dump=records "$TMP/$name.fxt" 2>/dev/null | grep -q "name=\"$(basename "$KEPT_EXE") \["; then
		fail "$name" "the trace has no thread of the recorded shell"
	elif grep -q "$SECRET_WORD" "$TMP/$name.err"; then
		fail "$name" "the root-only file's text was shown"
	else
		return 0
	fi
	return 1
}

in_kept_fifo() {
	local d
	d=$(kept_recording rec-kept-fifo)
	as_attacker mkfifo "$d/binaries$KEPT_EXE/$KEPT_ID/elf"
	as_attacker ln -s "../..$KEPT_EXE/$KEPT_ID/elf" "$d/binaries/.build-id/${KEPT_ID:0:2}/${KEPT_ID:2}"
	kept_refused in-kept-fifo "$d" "${KEPT_EXE#/}/$KEPT_ID/elf: a FIFO" && ok in-kept-fifo
}

in_kept_link_out() {
	local d
	d=$(kept_recording rec-kept-out)
	cp "$KEPT_EXE" "$ROOTONLY/prog"
	chmod 700 "$ROOTONLY/prog"
	as_attacker ln -s "../../../../../rootonly/prog" "$d/binaries/.build-id/${KEPT_ID:0:2}/${KEPT_ID:2}"
	kept_refused in-kept-link-out "$d" ".build-id/${KEPT_ID:0:2}/${KEPT_ID:2}: a symbolic link out of it" &&
		ok in-kept-link-out
	rm -f "$ROOTONLY/prog"
}

in_kept_dir_link() {
	local d
	d=$(kept_recording rec-kept-dir)
	as_attacker rm -r "$d/binaries"
	as_attacker ln -s "$ROOTONLY" "$d/binaries"
	kept_refused in-kept-dir-link "$d" "no directory (a symbolic link)" && ok in-kept-dir-link
}

# The attacker's elf becomes a FIFO as perf script starts: a wrapper of perf
# (run by root's converter) does the swap as the attacker, notes what the
# --buildid-dir perf is given is (owner, mode, the elf's type), then runs perf.
in_kept_swapped() {
	local d elf wrap="$TMP/perf-swap" log="$TMP/in-kept-swapped.log" rc dir
	d=$(kept_recording rec-kept-swap)
	elf="$d/binaries$KEPT_EXE/$KEPT_ID/elf"
	as_attacker sh -c 'cat >"$1"' sh "$elf" <"$KEPT_EXE"
	as_attacker ln -s "../..$KEPT_EXE/$KEPT_ID" "$d/binaries/.build-id/${KEPT_ID:0:2}/${KEPT_ID:2}"
	# perf (the wrapper) runs as the recording's owner, the attacker: its log is theirs
	: >"$log"
	chown "$AUID:$AGID" "$log"
	cat >"$wrap" <<EOF
#!/bin/sh
dir=
prev=
for a in "\$@"; do [ "\$prev" = --buildid-dir ] && dir=\$a; prev=\$a; done
if [ -n "\$dir" ] && [ ! -s "$log" ]; then
	\$([ "\$(id -u)" = 0 ] && echo "${ATTACKER[*]}") sh -c 'rm "\$1" && mkfifo "\$1"' sh "$elf"
	stat -L -c '%u %a %F' "\$dir" "\$dir$KEPT_EXE/$KEPT_ID/elf" >"$log" 2>&1
	readlink "\$dir" >>"$log"
fi
exec perf "\$@"
EOF
	chmod 755 "$wrap"
	timeout -k 5 60 "$CONVERT" --perf "$wrap" "$d" -o "$TMP/in-kept-swapped.fxt" >/dev/null \
		2>"$TMP/in-kept-swapped.err"
	rc=$?
	dir=$(sed -n 3p "$log" 2>/dev/null)
	if blocked "$rc"; then
		fail in-kept-swapped "the converter blocked (perf read the attacker's FIFO)"
	elif [ ! -p "$elf" ]; then
		fail in-kept-swapped "the swap did not happen (exit $rc): $(first_lines "$TMP/in-kept-swapped.err")"
	elif [ "$rc" -ne 0 ]; then
		fail in-kept-swapped "exit $rc: $(first_lines "$TMP/in-kept-swapped.err")"
	elif [ "$(sed -n 1,2p "$log" | tr '\n' ' ')" != "$AUID 700 directory $AUID 600 regular file " ]; then
		fail in-kept-swapped "perf's --buildid-dir is no private copy of root's: $(tr '\n' ' ' <"$log")"
	elif [ -z "$dir" ] || [ -e "$dir" ]; then
		fail in-kept-swapped "the private copy ($dir) is not removed"
	elif ! "$CONVERT" --dump=records "$TMP/in-kept-swapped.fxt" 2>/dev/null | grep -q "name=\"$(basename "$KEPT_EXE") \["; then
		fail in-kept-swapped "the trace has no thread of the recorded shell"
	else
		ok in-kept-swapped
	fi
}

in_kept_stale() {
	local d s="$TMP/scratch" locker rc decoy="$ROOTONLY/kept-decoy"
	d=$(kept_recording rec-kept-stale)
	mkdir -m 1777 "$s"
	mkdir -m 700 "$s/snaptrace-kept-dead01" "$s/snaptrace-kept-young1" "$s/snaptrace-kept-held01"
	mkdir -p -m 700 "$s/snaptrace-kept-dead01/usr/bin"
	: >"$s/snaptrace-kept-dead01/usr/bin/elf"
	echo decoy >"$decoy"
	# a copy given to her and left: what perf (as her) may have put there too
	as_attacker mkdir -m 700 "$s/snaptrace-kept-given1" "$s/snaptrace-kept-stick1"
	as_attacker mkdir -m 755 "$s/snaptrace-kept-open01" "$s/snaptrace-kept-given1/sub"
	as_attacker touch "$s/snaptrace-kept-given1/sub/elf"
	as_attacker ln -s "$decoy" "$s/snaptrace-kept-given1/link"
	as_attacker ln -s "$ROOTONLY" "$s/snaptrace-kept-given1/dirlink"
	as_attacker mkdir -m 1777 "$s/snaptrace-kept-stick1/keep"
	echo root >"$s/snaptrace-kept-stick1/keep/root-file"
	touch -d '-2 min' "$s/snaptrace-kept-dead01" "$s/snaptrace-kept-held01" "$s/snaptrace-kept-given1" \
		"$s/snaptrace-kept-stick1" "$s/snaptrace-kept-open01"
	(exec 9<"$s/snaptrace-kept-held01" && flock -x 9 && exec sleep 30) &
	locker=$!
	sleep 0.2
	TMPDIR="$s" timeout -k 5 60 "$CONVERT" -q "$d" -o "$TMP/in-kept-stale.fxt" 2>"$TMP/in-kept-stale.err"
	rc=$?
	end_bg "$locker"
	if [ "$rc" -ne 0 ]; then
		fail in-kept-stale "exit $rc: $(first_lines "$TMP/in-kept-stale.err")"
	elif [ -e "$s/snaptrace-kept-dead01" ]; then
		fail in-kept-stale "a dead converter's copy is not removed"
	elif [ -e "$s/snaptrace-kept-given1" ]; then
		fail in-kept-stale "a dead converter's copy given to the attacker is not removed: $(cd "$s/snaptrace-kept-given1" && ls -A | tr '\n' ' ')"
	elif [ "$(cat "$decoy")" != decoy ] || [ ! -e "$ROOTONLY/kept-decoy" ]; then
		fail in-kept-stale "the attacker's link was followed: root's decoy is gone or changed"
	elif [ "$(cat "$s/snaptrace-kept-stick1/keep/root-file" 2>&1)" != root ]; then
		fail in-kept-stale "root's file in the attacker's sticky directory was removed"
	elif [ "$(cd "$s" && ls | tr '\n' ' ')" != "snaptrace-kept-held01 snaptrace-kept-open01 snaptrace-kept-stick1 snaptrace-kept-young1 " ]; then
		fail in-kept-stale "expected the locked, the open, the sticky and the young copy to stay, and no other: $(ls "$s" | tr '\n' ' ')"
	else
		ok in-kept-stale
	fi
}

# Root's recording of the JIT (tests/e2e/jit_target.c) in JIT_DIR (root's,
# 755, inside the attacker's directory), into $TMP/jit-rec, keeping its
# whole run (WHOLE_RUN, as the perf-map recording does: the JIT's code runs
# first, and perf's default ring lost it under load): its jitdump's name in
# JIT_DUMP. Returns 1 after a FAIL of each test in JIT_TESTS.
JIT_DIR="$HOME_A/jit-by-root"
JIT_TESTS="theirs-jitdump-root in-jitdump-swapped in-jitdump-big in-perf-mountns in-perfmap-fifo in-perfmap-link in-perfmap-other theirs-perfmap-root
in-perfmap-thread in-perfmap-minus1 in-perf-compressed user-perfmap-fifo user-perfmap-nons in-perfmap-comm perfmap-alias"
jit_recording() {
	local t why=
	if ! cc -std=c11 -O1 -g -fno-omit-frame-pointer -o "$TMP/jit_target" \
		"$SNAPTRACE_TOP/tests/e2e/jit_target.c" 2>"$TMP/jit-cc.err"; then
		why="cannot compile jit_target.c: $(first_lines "$TMP/jit-cc.err")"
	elif ! mkdir -m 755 "$JIT_DIR" || ! timeout -k 5 60 "$RECORD" -q -o "$TMP/jit-rec" \
		"${WHOLE_RUN[@]}" --trigger none -- "$TMP/jit_target" "$JIT_DIR" 150 d \
		2>"$TMP/jit-rec.err"; then
		why="root's recording failed: $(first_lines "$TMP/jit-rec.err")"
	else
		JIT_DUMP=$(cd "$JIT_DIR" && ls jit-*.dump 2>/dev/null)
		rm -f "$JIT_DIR"/jitted-* "/tmp/perf-${JIT_DUMP//[!0-9]/}.map"
		return 0
	fi
	for t in $JIT_TESTS; do
		fail "$t" "$why"
	done
	return 1
}

# Root's JIT recording converted with a perf wrapper that, as perf inject
# starts, has the attacker rename JIT_DIR to JIT_DIR.old and make JIT_DIR/
# with a FIFO for the jitdump.
# theirs_jitdump_root: see the header.
theirs_jitdump_root() {
	local dump="$JIT_DIR/$JIT_DUMP" mine="$HOME_A/jit-theirs.data" data mode
	data=$(ls "$TMP"/jit-rec/perf.data* | head -n 1)
	mode=$(stat -c %a "$dump")
	chmod 600 "$dump"
	chmod 644 "$data"
	as_attacker cp "$data" "$mine"
	timeout -k 5 60 "$CONVERT" -q "$TMP/jit-rec" -o "$TMP/theirs-jitdump-root.root.fxt" 2>"$TMP/theirs-jitdump-root.err"
	if ! "$CONVERT" --dump=slices "$TMP/theirs-jitdump-root.root.fxt" 2>&1 | grep -q " jit_dump_spin$"; then
		fail theirs-jitdump-root "root's own recording does not name the jitdump's function: $(first_lines "$TMP/theirs-jitdump-root.err")"
	elif ! timeout -k 5 60 "$CONVERT" -q "$mine" -o "$TMP/theirs-jitdump-root.fxt" 2>"$TMP/theirs-jitdump-root.err"; then
		fail theirs-jitdump-root "the conversion failed: $(first_lines "$TMP/theirs-jitdump-root.err")"
	elif "$CONVERT" --dump=slices "$TMP/theirs-jitdump-root.fxt" 2>&1 | grep -q " jit_dump_spin$"; then
		fail theirs-jitdump-root "root's 0600 jitdump named the attacker's perf.data's JIT frames"
	elif ! grep -q "the JIT's jitdump $dump is not read (uid $AUID, whose recording it is, may not open it)" "$TMP/theirs-jitdump-root.err"; then
		fail theirs-jitdump-root "no warning names the jitdump and why: $(first_lines "$TMP/theirs-jitdump-root.err")"
	else
		ok theirs-jitdump-root
	fi
	chmod "$mode" "$dump"
}

in_jitdump_swapped() {
	local d="$JIT_DIR" wrap="$TMP/perf-jit-swap" log="$TMP/in-jitdump-swapped.log" rc dump="$JIT_DUMP"
	# perf runs with a /tmp of its own (common/tmpview.h): the attacker acts
	# out here, told through the wrapper's fd 9 (perf inject's working
	# directory), and says it is done through its fd 8 (a FIFO's)
	mkfifo "$TMP/swap.done"
	exec 8<>"$TMP/swap.done"
	cat >"$wrap" <<EOF
#!/bin/sh
if [ "\$1" = inject ]; then
	pwd >&9
	read -r done <&8
fi
exec perf "\$@"
EOF
	chmod 755 "$wrap"
	timeout -k 5 60 "$CONVERT" --perf "$wrap" "$TMP/jit-rec" -o "$TMP/in-jitdump-swapped.fxt" \
		>/dev/null 2>"$TMP/in-jitdump-swapped.err" 9> >(read -r cwd &&
		"${ATTACKER[@]}" sh -c 'mv "$1" "$1.old" && mkdir "$1" && mkfifo "$1/$2"' sh \
			"$d" "$dump" >"$log" 2>&1; echo "$cwd" >"$log.cwd"; echo done >"$TMP/swap.done")
	rc=$?
	wait $!
	exec 8<&-
	if blocked "$rc"; then
		fail in-jitdump-swapped "the converter blocked (perf inject opened the attacker's FIFO)"
	elif [ -z "$dump" ] || [ ! -p "$d/$dump" ]; then
		fail in-jitdump-swapped "the swap did not happen (exit $rc, jitdump '$dump'): $(tr '\n' ' ' <"$log" 2>/dev/null) $(first_lines "$TMP/in-jitdump-swapped.err")"
	elif [ "$rc" -ne 0 ]; then
		fail in-jitdump-swapped "exit $rc: $(first_lines "$TMP/in-jitdump-swapped.err")"
	elif [ "$(ls -A "$d.old")" != "$dump" ] || [ "$(ls -A "$d")" != "$dump" ]; then
		fail in-jitdump-swapped "perf inject wrote beside the jitdump: $(ls -A "$d.old" "$d" | tr '\n' ' ')"
	elif [ ! -s "$log.cwd" ] || [ -e "$(cat "$log.cwd")" ]; then
		fail in-jitdump-swapped "perf inject's private directory ('$(cat "$log.cwd" 2>/dev/null)') is not removed"
	elif ! "$CONVERT" --dump=slices "$TMP/in-jitdump-swapped.fxt" 2>&1 | grep -q " jit_dump_spin$"; then
		fail in-jitdump-swapped "the jitdump's function is not named: $(grep -i jit "$TMP/in-jitdump-swapped.err" | first_lines /dev/stdin)"
	else
		ok in-jitdump-swapped
	fi
}

in_jitdump_big() {
	local d="$JIT_DIR" rc
	as_attacker sh -c 'rm -f "$1/$2" && truncate -s 5G "$1/$2"' sh "$d" "$JIT_DUMP"
	timeout -k 5 30 "$CONVERT" "$TMP/jit-rec" -o "$TMP/in-jitdump-big.fxt" >/dev/null \
		2>"$TMP/in-jitdump-big.err"
	rc=$?
	rm -f "$d/$JIT_DUMP"
	if blocked "$rc" || [ "$rc" -ne 0 ]; then
		fail in-jitdump-big "exit $rc: $(first_lines "$TMP/in-jitdump-big.err")"
	elif [ "$(grep -c "the JIT's jitdump" "$TMP/in-jitdump-big.err")" -ne 1 ] ||
		! grep -q "the JIT's jitdump $d/$JIT_DUMP is not read ([0-9]* bytes with the perf.data, more than the 4 GiB a conversion copies at most)" "$TMP/in-jitdump-big.err"; then
		fail in-jitdump-big "expected one warning naming the jitdump and the bound: $(first_lines "$TMP/in-jitdump-big.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/in-jitdump-big.fxt" >/dev/null 2>&1; then
		fail in-jitdump-big "the trace does not read back"
	else
		ok in-jitdump-big
	fi
}

# as_attacker_in_tmp CMD...: as_attacker, with the suite's /tmp (its own,
# root's: tests/run.sh) shared as the real one is for the while.
as_attacker_in_tmp() {
	local mode rc
	mode=$(stat -c %a /tmp)
	chmod 1777 /tmp
	as_attacker "$@"
	rc=$?
	chmod "$mode" /tmp
	return "$rc"
}

# Root's recording of the JIT writing a perf map (no jitdump) into PM_REC,
# the map kept there (perf-PID.map) and the original removed; PM_PID its
# pid, PM_ADDR the JIT function's address. Then the tests of /tmp/perf-PID.map.
# The ring holds the whole run (WHOLE_RUN): the perf map's code runs first
# (CI: in-perfmap-fifo named no JIT function, 2 runs in about 8).
PM_REC="$TMP/pm-rec"
perfmap_tests() {
	local t why= kept tmp_lock
	mkdir -m 755 "$TMP/pm-work"
	if ! timeout -k 5 60 "$RECORD" -q -o "$PM_REC" "${WHOLE_RUN[@]}" --trigger none -- "$TMP/jit_target" \
		"$TMP/pm-work" 150 2>"$TMP/pm-rec.err"; then
		why="root's recording failed: $(first_lines "$TMP/pm-rec.err")"
	elif ! kept=$(cd "$PM_REC" && ls perf-*.map 2>/dev/null) || [ -z "$kept" ]; then
		why="the recording kept no perf map: $(ls "$PM_REC" | tr '\n' ' ') $(first_lines "$TMP/pm-rec.err")"
	else
		PM_PID=${kept//[!0-9]/}
		PM_ADDR=$(awk '$3 == "jit_perfmap_spin" { print $1 }' "$PM_REC/$kept")
		rm -f "/tmp/perf-$PM_PID.map"
		in_perfmap_fifo
		in_perfmap_link
		in_perfmap_other
		theirs_perfmap_root
		requires in-perfmap-thread python3 strace && in_perfmap_forged in-perfmap-thread thread \
			"perf-$PM_PID.map"
		requires in-perfmap-minus1 python3 strace && in_perfmap_forged in-perfmap-minus1 minus1 \
			"perf--1.map"
		in_perf_compressed
		user_perfmap_fifo
		requires user-perfmap-nons user_namespace && user_perfmap_nons
		rm -f "/tmp/perf-$PM_PID.map"
		# names in the real /tmp every copy of this suite uses (perf-0.map,
		# perf-1.map: a JIT in a pid namespace of its own is pid 1) and its
		# mode: copies side by side (make test-stress, a CI beside it) take
		# turns, holding a lock on /tmp itself (once, one copy deleted the
		# other's perf-1.map)
		exec {tmp_lock}</tmp
		flock -w 600 "$tmp_lock"
		requires in-perfmap-comm user_namespace && in_perfmap_comm
		perfmap_alias
		exec {tmp_lock}<&-
		return
	fi
	for t in in-perfmap-fifo in-perfmap-link in-perfmap-other theirs-perfmap-root in-perfmap-thread in-perfmap-minus1 \
		in-perf-compressed user-perfmap-fifo user-perfmap-nons in-perfmap-comm perfmap-alias; do
		fail "$t" "$why"
	done
}

# fifo_untouched NAME REC FIFO DUMP PATTERN WHAT: root converts REC into
# $TMP/NAME.fxt (stderr in $TMP/NAME.err) with the attacker's FIFO at
# FIFO: at once, exit 0, --dump=DUMP of the trace matches PATTERN (else
# "WHAT" is the FAIL), the FIFO left as it was; returns 1 after a FAIL.
fifo_untouched() {
	local name=$1 rec=$2 fifo=$3 dump=$4 pat=$5 what=$6 rc
	timeout -k 5 20 "$CONVERT" -q "$rec" -o "$TMP/$name.fxt" 2>"$TMP/$name.err"
	rc=$?
	if blocked "$rc"; then
		fail "$name" "the converter blocked (perf opened the attacker's FIFO $fifo)"
	elif [ "$rc" -ne 0 ]; then
		fail "$name" "exit $rc: $(first_lines "$TMP/$name.err")"
	elif ! "$CONVERT" --dump="$dump" "$TMP/$name.fxt" 2>&1 | grep -q -- "$pat"; then
		fail "$name" "$what: $(first_lines "$TMP/$name.err")"
	elif [ ! -p "$fifo" ] || [ "$(stat -c %u "$fifo")" != "$AUID" ]; then
		fail "$name" "the attacker's FIFO was replaced: $(ls -l "$fifo" 2>&1)"
	else
		return 0
	fi
	return 1
}

in_perfmap_fifo() {
	local map="/tmp/perf-$PM_PID.map"
	as_attacker_in_tmp mkfifo -m 666 "$map"
	fifo_untouched in-perfmap-fifo "$PM_REC" "$map" slices " jit_perfmap_spin$" \
		"the JIT's function is not named from the kept copy" && ok in-perfmap-fifo
	rm -f "$map"
}

# pm_converted NAME RC FXT WARNING: the conversion NAME exited 0 (RC), its
# trace FXT reads back with the JIT's thread (its records in
# $TMP/NAME.records), and $TMP/NAME.err holds one line with WARNING (a
# fixed string); returns 1 after a FAIL.
pm_converted() {
	local name=$1 rc=$2 fxt=$3 warning=$4
	if [ "$rc" -ne 0 ]; then
		fail "$name" "exit $rc: $(first_lines "$TMP/$name.err")"
	elif ! "$CONVERT" --dump=records "$fxt" >"$TMP/$name.records" 2>&1 ||
		! grep -q 'name="jit_target' "$TMP/$name.records"; then
		fail "$name" "the trace does not read back: $(first_lines "$TMP/$name.records")"
	elif [ "$(grep -cF -- "$warning" "$TMP/$name.err")" -ne 1 ]; then
		fail "$name" "expected one line with '$warning': $(first_lines "$TMP/$name.err")"
	else
		return 0
	fi
	return 1
}

in_perfmap_link() {
	local map="/tmp/perf-$PM_PID.map" out="$TMP/in-perfmap-link.fxt" rec="$TMP/pm-nokeep"
	local secret="$TMP/pm-secret" word="SECRETMAP$RANDOM$RANDOM" ino rc
	cp -a "$PM_REC" "$rec" && rm "$rec/perf-$PM_PID.map"
	printf '%s 9 %s\n' "${PM_ADDR:-0}" "$word" >"$secret"
	chmod 600 "$secret"
	ino=$(stat -c %i "$secret")
	as_attacker_in_tmp ln -s "$secret" "$map"
	timeout -k 5 20 "$CONVERT" -q "$rec" -o "$out" 2>"$TMP/in-perfmap-link.err"
	rc=$?
	if [ -z "$PM_ADDR" ]; then
		fail in-perfmap-link "the kept perf map names no jit_perfmap_spin"
	elif ! pm_converted in-perfmap-link "$rc" "$out" "perf-$PM_PID.map is not read (a symbolic link"; then
		:
	elif grep -q "$word" "$TMP/in-perfmap-link.records" "$TMP/in-perfmap-link.err"; then
		fail in-perfmap-link "the root-only file's contents reached the trace or its messages (perf read the link $map)"
	elif [ "$(stat -c %i "$secret")" != "$ino" ] || [ "$(cat "$secret")" != "$PM_ADDR 9 $word" ]; then
		fail in-perfmap-link "the root-only file changed"
	else
		ok in-perfmap-link
	fi
	rm -f "$map"
}

in_perfmap_other() {
	local map="/tmp/perf-$PM_PID.map" out="$TMP/in-perfmap-other.fxt" rc
	as_attacker_in_tmp sh -c 'printf "%s 9 ATTACKERNAME\n" "$1" >"$2"' sh "${PM_ADDR:-0}" "$map"
	timeout -k 5 20 "$CONVERT" -q "$TMP/pm-nokeep" -o "$out" 2>"$TMP/in-perfmap-other.err"
	rc=$?
	if ! pm_converted in-perfmap-other "$rc" "$out" "perf-$PM_PID.map is not read (owned by uid $AUID"; then
		:
	elif grep -q ATTACKERNAME "$TMP/in-perfmap-other.records"; then
		fail in-perfmap-other "the attacker's perf map named root's JIT"
	else
		ok in-perfmap-other
	fi
	rm -f "$map"
}

# theirs_perfmap_root: see the header.
theirs_perfmap_root() {
	local map="/tmp/perf-$PM_PID.map" mine="$HOME_A/pm-theirs.data" data rc
	data=$(ls "$TMP"/pm-nokeep/perf.data* | head -n 1)
	printf '%s 9 ROOTONLYJITNAME\n' "${PM_ADDR:-0}" >"$map"
	chmod 600 "$map"
	chmod 644 "$data"
	as_attacker cp "$data" "$mine"
	timeout -k 5 20 "$CONVERT" -q "$TMP/pm-nokeep" -o "$TMP/theirs-perfmap-root.root.fxt" \
		2>"$TMP/theirs-perfmap-root.err"
	timeout -k 5 20 "$CONVERT" -q "$mine" -o "$TMP/theirs-perfmap-root.fxt" 2>>"$TMP/theirs-perfmap-root.err"
	rc=$?
	if ! "$CONVERT" --dump=records "$TMP/theirs-perfmap-root.root.fxt" 2>&1 | grep -q ROOTONLYJITNAME; then
		fail theirs-perfmap-root "root's own recording is not named from root's map: $(first_lines "$TMP/theirs-perfmap-root.err")"
	elif [ "$rc" -ne 0 ]; then
		fail theirs-perfmap-root "exit $rc: $(first_lines "$TMP/theirs-perfmap-root.err")"
	elif ! "$CONVERT" --dump=records "$TMP/theirs-perfmap-root.fxt" >"$TMP/theirs-perfmap-root.records" 2>&1 ||
		! grep -q 'name="jit_target' "$TMP/theirs-perfmap-root.records"; then
		fail theirs-perfmap-root "the trace does not read back: $(first_lines "$TMP/theirs-perfmap-root.records")"
	elif grep -q ROOTONLYJITNAME "$TMP/theirs-perfmap-root.records"; then
		fail theirs-perfmap-root "root's 0600 perf map named the attacker's perf.data's JIT frames"
	else
		ok theirs-perfmap-root
	fi
	rm -f "$map"
}

# pm_forge NAME HOW: a copy of $TMP/pm-nokeep into $TMP/NAME-rec whose
# perf.data records of the JIT's process PM_PID are forged (each record's
# body: the pid, tid pair PM_PID, PM_PID replaced): HOW "thread", thread
# PM_PID+1 of process PM_PID, and the JIT's //anon mapping of process
# PM_PID+1, as every mapping of its (perf names the map after the process
# the thread was first seen in: perf-PM_PID.map, which the view made for
# PM_PID+1 did not predict);
# "minus1", process and thread -1 (perf--1.map). Returns 1 on failure.
pm_forge() {
	local rec="$TMP/$1-rec"
	cp -a "$TMP/pm-nokeep" "$rec" && python3 - "$PM_PID" "$2" "$rec"/perf.data* <<'PY'
import struct, sys
pid, how, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if len(sys.argv) != 4:
    sys.exit('expected one perf.data: %s' % sys.argv[3:])
d = bytearray(open(path, 'rb').read())
off, size = struct.unpack_from('<QQ', d, 40)
was = struct.pack('<II', pid, pid)
new = struct.pack('<II', pid, pid + 1) if how == 'thread' else struct.pack('<ii', -1, -1)
p, anon = off, 0
while p < off + size:
    kind, _, sz = struct.unpack_from('<IHH', d, p)
    if sz < 8:
        sys.exit('record at byte %d: size %d' % (p, sz))
    body = d[p + 8:p + sz].replace(was, new)
    if how == 'thread' and kind in (1, 10) and body[:8] == new:
        struct.pack_into('<I', body, 0, pid + 1)
        anon += b'//anon' in body
    d[p + 8:p + sz] = body
    p += sz
if how == 'thread' and not anon:
    sys.exit('no //anon mapping')
open(path, 'wb').write(d)
PY
}

# in_perfmap_forged NAME HOW MAP: root converts the forged copy (pm_forge
# HOW) with the attacker's link at /tmp/MAP to a root-only file naming the
# JIT's address, its perf run under strace (the converter's own check of
# the name keeps what perf read out of the trace: the open is the sign),
# then with their FIFO there: never blocked, perf never opened /tmp/MAP,
# no byte of the file in the trace or the messages (the -1 forgery is
# refused as perf script text without pids: exit 2 both times).
in_perfmap_forged() {
	local name=$1 map="/tmp/$3" secret="$TMP/$1-secret" word="SECRETMAP$RANDOM$RANDOM" rc rc2
	local wrap="$TMP/perf-strace" log="$TMP/$1.strace"
	if ! pm_forge "$name" "$2" 2>"$TMP/$name.err"; then
		fail "$name" "cannot forge the perf.data: $(first_lines "$TMP/$name.err")"
		return
	fi
	printf '#!/bin/sh\nexec strace -f -qq -A -e trace=open,openat -o /proc/self/fd/9 perf "$@"\n' >"$wrap"
	chmod 755 "$wrap"
	printf '%s 1000 %s\n' "${PM_ADDR:-0}" "$word" >"$secret"
	chmod 600 "$secret"
	rm -f "$map"
	as_attacker_in_tmp ln -s "$secret" "$map"
	timeout -k 5 20 "$CONVERT" -q --perf "$wrap" "$TMP/$name-rec" -o "$TMP/$name.fxt" \
		2>"$TMP/$name.err" 9>"$log"
	rc=$?
	rm -f "$map"
	as_attacker_in_tmp mkfifo -m 666 "$map"
	timeout -k 5 20 "$CONVERT" -q "$TMP/$name-rec" -o "$TMP/$name-fifo.fxt" 2>"$TMP/$name-fifo.err"
	rc2=$?
	if blocked "$rc" || blocked "$rc2"; then
		fail "$name" "the converter blocked (perf opened the attacker's $map)"
	elif [ "$rc" -ne "$rc2" ]; then
		fail "$name" "exit $rc with the link, $rc2 with the FIFO: $(first_lines "$TMP/$name-fifo.err")"
	elif ! grep -q 'perf-[-0-9]*\.map' "$log"; then
		fail "$name" "strace saw perf look for no perf map: $(first_lines "$log")"
	elif grep -F "\"$map\"" "$log" | grep -qv ENOENT; then
		fail "$name" "perf opened the attacker's $map: $(grep -F "\"$map\"" "$log" | first_lines /dev/stdin)"
	elif [ "$rc" -eq 0 ] && { ! "$CONVERT" --dump=records "$TMP/$name.fxt" >"$TMP/$name.records" 2>&1 ||
		! grep -q 'name="jit_target' "$TMP/$name.records"; }; then
		fail "$name" "the trace does not read back: $(first_lines "$TMP/$name.records")"
	elif cat "$TMP/$name.records" "$TMP/$name.err" 2>/dev/null | grep -q "$word"; then
		fail "$name" "the root-only file's contents reached the trace or its messages (perf read the link $map)"
	elif [ ! -p "$map" ]; then
		fail "$name" "the attacker's FIFO was replaced: $(ls -l "$map" 2>&1)"
	else
		ok "$name"
	fi
	rm -f "$map"
}

# Root's perf record -z of the JIT (what perf maps it wrote removed), the
# attacker's link at its /tmp/perf-PID.map to a root-only file.
in_perf_compressed() {
	local d="$TMP/zrec" secret="$TMP/z-secret" word="SECRETMAP$RANDOM$RANDOM" pid rc
	mkdir -m 755 "$d" "$d/work"
	if ! timeout -k 5 60 perf record -q -z -k mono -e cpu-clock:u -o "$d/perf.data" -- \
		"$TMP/jit_target" "$d/work" 150 >/dev/null 2>"$TMP/in-perf-compressed.err"; then
		fail in-perf-compressed "perf record -z failed: $(first_lines "$TMP/in-perf-compressed.err")"
		return
	fi
	pid=$(perf script -f -i "$d/perf.data" -F pid 2>/dev/null | awk 'NR == 1 { print $1 }')
	rm -f "/tmp/perf-$pid.map"
	printf '%s 1000 %s\n' "${PM_ADDR:-0}" "$word" >"$secret"
	chmod 600 "$secret"
	as_attacker_in_tmp ln -s "$secret" "/tmp/perf-$pid.map"
	timeout -k 5 20 "$CONVERT" -q "$d/perf.data" -o "$TMP/in-perf-compressed.fxt" \
		2>"$TMP/in-perf-compressed.err"
	rc=$?
	rm -f "/tmp/perf-$pid.map"
	if [ -z "$pid" ]; then
		fail in-perf-compressed "the recording has no sample"
	elif grep -q "$word" "$TMP/in-perf-compressed.err"; then
		fail in-perf-compressed "the root-only file's contents reached the messages"
	elif refuses "$rc" in-perf-compressed 1 "$d/perf.data: .*compressed \\(perf record -z\\).*without -z" \
		"$TMP/in-perf-compressed.err"; then
		ok in-perf-compressed
	fi
}

# A third user (uid 65533) converts their copy of the recording without its
# kept map while the attacker's FIFO is at /tmp/perf-PID.map.
VUID=65533
# victim_convert: a copy of the build's programs (the converter finds its
# dlfilter beside it) in $TMP/victim-bin, which uid VUID can reach whatever
# the modes of the directories above the build (a clone in a 0700 mktemp
# directory); prints the converter's path.
victim_convert() {
	if [ ! -x "$TMP/victim-bin/snaptrace-convert" ]; then
		mkdir -m 755 "$TMP/victim-bin" && cp "$SNAPTRACE_BIN"/* "$TMP/victim-bin/" &&
			chmod -R a+rX "$TMP/victim-bin"
	fi
	echo "$TMP/victim-bin/snaptrace-convert"
}

user_perfmap_fifo() {
	local map="/tmp/perf-$PM_PID.map" v="$TMP/victim" rc
	mkdir -m 755 "$v" && cp -a "$TMP/pm-nokeep" "$v/rec" && chown -R "$VUID:$VUID" "$v"
	as_attacker_in_tmp mkfifo -m 666 "$map"
	TMPDIR="$v" timeout -k 5 20 setpriv --reuid="$VUID" --regid="$VUID" --clear-groups \
		"$(victim_convert)" -q "$v/rec" -o "$v/t.fxt" 2>"$TMP/user-perfmap-fifo.err"
	rc=$?
	if blocked "$rc"; then
		fail user-perfmap-fifo "uid $VUID's converter blocked (perf opened the attacker's FIFO $map)"
	elif [ "$rc" -eq 1 ] && refuses "$rc" user-perfmap-fifo 1 \
		"$map: a FIFO of uid $AUID where perf script reads a JIT's perf map" \
		"$TMP/user-perfmap-fifo.err"; then
		ok user-perfmap-fifo	# no user namespace for uid $VUID here
	elif pm_converted user-perfmap-fifo "$rc" "$v/t.fxt" "perf-$PM_PID.map is not read (a FIFO"; then
		ok user-perfmap-fifo
	fi
	rm -f "$map"
}

# ... where no user namespace can be made for perf: uid VUID in a user
# namespace of their own (VUID as its root) whose max_user_namespaces is 0,
# its capabilities dropped (so none to mount with).
user_perfmap_nons() {
	local map="/tmp/perf-$PM_PID.map" v="$TMP/victim" rc
	as_attacker_in_tmp mkfifo -m 666 "$map"
	TMPDIR="$v" timeout -k 5 20 setpriv --reuid="$VUID" --regid="$VUID" --clear-groups \
		unshare -U --map-root-user sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
		exec setpriv --bounding-set -all --inh-caps -all "$@"' sh \
		"$(victim_convert)" -q "$v/rec" -o "$v/nons.fxt" 2>"$TMP/user-perfmap-nons.err"
	rc=$?
	if blocked "$rc"; then
		fail user-perfmap-nons "uid $VUID's converter blocked (perf opened the attacker's FIFO $map)"
	elif refuses "$rc" user-perfmap-nons 1 \
		"$map: a FIFO of uid $AUID where perf script reads a JIT's perf map: perf would open it \(no private /tmp for perf" \
		"$TMP/user-perfmap-nons.err"; then
		ok user-perfmap-nons
	fi
	rm -f "$map"
}

# live_jit NAME SEES DIR PREFIX...: starts the JIT (MS 6000: recorded in its
# perf-map spin however slow the recorder starts; then waiting
# for SIGTERM) as the command PREFIX... DIR 6000 w in the background (its
# output in $TMP/NAME.jit), the JIT that process or its child (unshare
# --fork); waits for the perf map it writes, /tmp/perf-SEES.map (SEES the
# pid it sees itself by; "": its own). Sets LIVE (the background pid) and
# LIVE_PID (the JIT's); returns 1 after a FAIL. live_end ends both.
live_jit() {
	local name=$1 sees=$2 dir=$3 i
	shift 3
	"$@" "$dir" 6000 w >"$TMP/$name.jit" 2>&1 &
	LIVE=$!
	for i in $(seq 100); do
		LIVE_PID=$(cat "/proc/$LIVE/task/$LIVE/children" 2>/dev/null)
		LIVE_PID=${LIVE_PID// /}
		[ -n "$LIVE_PID" ] || LIVE_PID=$LIVE
		if [ -e "/tmp/perf-${sees:-$LIVE_PID}.map" ]; then
			# the JIT wrote it: its pid now (unshare --fork's child may
			# have come after the first read above)
			LIVE_PID=$(cat "/proc/$LIVE/task/$LIVE/children" 2>/dev/null)
			LIVE_PID=${LIVE_PID// /}
			[ -n "$LIVE_PID" ] || LIVE_PID=$LIVE
			return 0
		fi
		sleep 0.05
	done
	fail "$name" "the JIT wrote no /tmp/perf-${sees:-$LIVE_PID}.map: $(first_lines "$TMP/$name.jit")"
	live_end
	return 1
}

# live_end: ends live_jit's JIT (SIGKILL: the first process of a pid
# namespace gets no SIGTERM it has no handler for; unshare --fork ends then).
live_end() {
	kill -KILL "$LIVE_PID" 2>/dev/null
	wait "$LIVE" 2>/dev/null
}

# root records LIVE_PID for half a second into $TMP/NAME.rec (attach, no
# trigger); returns the recorder's status.
record_live() {
	timeout -k 5 30 "$RECORD" -q -o "$TMP/$1.rec" --trigger none --duration 0.5 -p "$LIVE_PID" \
		2>"$TMP/$1.rec.err"
}

# The attacker's JIT, its file named "NStgid:" (so its comm, the first line
# of /proc/PID/status: "Name:\tNStgid:"), in a user and mount namespace of
# its own, and the attacker's FIFO at /tmp/perf-0.map; root attaches to it
# and converts while it runs: at once, the trace has the JIT's thread, the
# FIFO is left as it was. perf 6.1 (nsinfo__new()) takes the NStgid
# from the first line holding "NStgid:", here the name: 0, and opened
# /tmp/perf-0.map, the FIFO, as that process's perf map: root's
# conversion hung. perf now sees a /proc of its own pid namespace.
in_perfmap_comm() {
	local jit="$HOME_A/NStgid:" mode
	cp "$TMP/jit_target" "$jit" && chown "$AUID:$AGID" "$jit"
	mode=$(stat -c %a /tmp)
	chmod 1777 /tmp
	as_attacker mkfifo -m 666 /tmp/perf-0.map
	if live_jit in-perfmap-comm "" "$HOME_A" "${ATTACKER[@]}" unshare -Urm "$jit"; then
		if ! record_live in-perfmap-comm; then
			fail in-perfmap-comm "root's recording failed: $(first_lines "$TMP/in-perfmap-comm.rec.err")"
		elif fifo_untouched in-perfmap-comm "$TMP/in-perfmap-comm.rec" /tmp/perf-0.map records \
			'name="NStgid: \[' "the trace has no thread of the attacker's JIT"; then
			ok in-perfmap-comm
		fi
		live_end
	fi
	chmod "$mode" /tmp
	rm -f /tmp/perf-0.map "/tmp/perf-$LIVE_PID.map"
}

# Root's JIT in a pid and mount namespace of its own writes
# /tmp/perf-1.map (the pid it sees itself by). Root attaches to it: a copy
# of the recording without the kept map, converted while the JIT runs,
# names its function (perf's /tmp holds that map under the pid perf
# knows), and so does the recording, converted once the JIT ended (the
# recorder kept the map by that name).
perfmap_alias() {
	local rec="$TMP/perfmap-alias.rec" copy="$TMP/perfmap-alias.copy" why=
	rm -f /tmp/perf-1.map
	live_jit perfmap-alias 1 "$TMP/pm-work" unshare -pm --fork --kill-child "$TMP/jit_target" || return
	if ! record_live perfmap-alias; then
		why="root's recording failed: $(first_lines "$TMP/perfmap-alias.rec.err")"
	elif [ ! -e "$rec/perf-$LIVE_PID.map" ]; then
		why="the recording kept no perf-$LIVE_PID.map: $(ls "$rec" | tr '\n' ' ') $(first_lines "$TMP/perfmap-alias.rec.err")"
	else
		cp -a "$rec" "$copy" && rm "$copy/perf-$LIVE_PID.map"
		timeout -k 5 20 "$CONVERT" -q "$copy" -o "$TMP/perfmap-alias.live.fxt" 2>"$TMP/perfmap-alias.live.err" ||
			why="the live conversion failed: $(first_lines "$TMP/perfmap-alias.live.err")"
	fi
	live_end
	rm -f /tmp/perf-1.map
	[ -z "$why" ] && ! timeout -k 5 20 "$CONVERT" -q "$rec" -o "$TMP/perfmap-alias.fxt" 2>"$TMP/perfmap-alias.err" &&
		why="the conversion failed: $(first_lines "$TMP/perfmap-alias.err")"
	if [ -n "$why" ]; then
		fail perfmap-alias "$why"
	elif ! "$CONVERT" --dump=slices "$TMP/perfmap-alias.live.fxt" 2>&1 | grep -q " jit_perfmap_spin$"; then
		fail perfmap-alias "converted while the JIT ran, its function is not named from /tmp/perf-1.map"
	elif ! "$CONVERT" --dump=slices "$TMP/perfmap-alias.fxt" 2>&1 | grep -q " jit_perfmap_spin$"; then
		fail perfmap-alias "the recording's kept map does not name the JIT's function"
	else
		ok perfmap-alias
	fi
}

# The attacker's crafted perf.data: root's JIT recording whose jitdump
# mapping now names R/jit-P.dump (the attacker's copy of the jitdump, its
# JIT's pid K: perf inject names its code jitted-K-0.so) with pid P, the
# attacker's process in a user and mount namespace of its own whose root
# is R, where jitted-K-0.so is a bind mount of the decoy. perf inject (and
# perf script) enter the mount namespace of a live pid a perf.data names
# (perf's nsinfo__new(): /proc/PID/ns/mnt) to open the jitdump and create
# the ELF files, ./jitted-K-0.so: from the namespace's root, the decoy.
in_perf_mountns() {
	local r="$HOME_A/j" ns="$TMP/in-perf-mountns.ns" data="$HOME_A/crafted.data" k p i rc left
	k=${JIT_DUMP//[!0-9]/}
	as_attacker mkdir -m 755 "$r"
	as_attacker cp "$JIT_DIR/$JIT_DUMP" "$r/" || { fail in-perf-mountns "the attacker cannot copy the jitdump"; return; }
	"${ATTACKER[@]}" unshare -Urm sh -c '
		mv "$1/jit-$2.dump" "$1/jit-$$.dump" && : >"$1/jitted-$2-0.so" &&
		mount --bind "$3" "$1/jitted-$2-0.so" && mount --rbind "$1" / && echo ready &&
		exec sleep 60' sh "$r" "$k" "$DECOY" >"$ns" 2>&1 &
	p=$!
	for i in $(seq 100); do
		grep -q ready "$ns" && break
		sleep 0.1
	done
	if ! grep -q ready "$ns" || ! kill -0 "$p" 2>/dev/null; then
		fail in-perf-mountns "the attacker's namespace is not set up: $(first_lines "$ns")"
		end_bg "$p"
		return
	fi
	cp "$(ls "$TMP"/jit-rec/perf.data* | head -n 1)" "$data"
	chown "$AUID:$AGID" "$data"
	# the jitdump's name, over its own bytes (NUL-padded), and the pid and
	# tid of its MMAP2 record (64 bytes before the name) become the attacker's
	as_attacker perl -e '
		my ($f, $old, $new, $pid, $to) = @ARGV;
		open(my $fh, "+<", $f) or die "$f: $!";
		binmode $fh;
		my $d = do { local $/; <$fh> };
		my ($at, $n) = (0, 0);
		while (($at = index($d, "$old\0", $at)) >= 64) {
			if (unpack("V", substr($d, $at - 64, 4)) == $pid) {
				substr($d, $at - 64, 8) = pack("VV", $to, $to);
				substr($d, $at, length $old) = $new . "\0" x (length($old) - length($new));
				$n++;
			}
			$at++;
		}
		seek($fh, 0, 0);
		print $fh $d;
		print "$n\n";' "$data" "$JIT_DIR/$JIT_DUMP" "$r/jit-$p.dump" "${JIT_DUMP//[!0-9]/}" "$p" \
		>"$TMP/in-perf-mountns.patched" 2>&1
	timeout -k 5 60 "$CONVERT" "$data" -o "$TMP/in-perf-mountns.fxt" >/dev/null 2>"$TMP/in-perf-mountns.err"
	rc=$?
	kill -0 "$p" 2>/dev/null
	i=$?
	end_bg "$p"
	left=$(find "$r" -mindepth 1 ! -user "$AUID" -printf '%f ')
	if [ "$(cat "$TMP/in-perf-mountns.patched")" != 1 ]; then
		fail in-perf-mountns "the jitdump mapping was not rewritten: $(first_lines "$TMP/in-perf-mountns.patched")"
	elif [ "$i" -ne 0 ]; then
		fail in-perf-mountns "the attacker's process ended during the conversion"
	elif blocked "$rc"; then
		fail in-perf-mountns "the converter blocked"
	elif ! decoy_intact in-perf-mountns; then
		:
	elif [ -n "$left" ]; then
		fail in-perf-mountns "root wrote into the attacker's directory: $left"
	elif [ "$rc" -ne 0 ]; then
		fail in-perf-mountns "exit $rc: $(first_lines "$TMP/in-perf-mountns.err")"
	elif ! "$CONVERT" --dump=records "$TMP/in-perf-mountns.fxt" 2>/dev/null | grep -q 'name="jit_target \['; then
		fail in-perf-mountns "the trace has no thread of the JIT"
	else
		ok in-perf-mountns
	fi
}

# spin_source FUNC MS [STATEMENT]: the C source of a program whose function
# FUNC runs again and again for MS ms, after STATEMENT (a C statement).
spin_source() {
	cat <<EOF
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void $1(void) { for (int i = 0; i < 1000; i++) sink += i; }
int main(void)
{
	struct timespec t0, t;
	${3:-}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		$1();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ${2}000000L);
	return 0;
}
EOF
}

# The attacker's traceevent plugin, whose constructor appends "uidN" (N
# the effective uid of whoever loads it) to $HOME_A/plugin-ran, in their
# HOME's plugin directory and in another of theirs; root's recording of a
# shell loop (sampling: it holds the sched and signal tracepoints).
home_plugins() {
	local h="$HOME_A/plughome" pdir="$HOME_A/plugdir" mark="$HOME_A/plugin-ran"
	local rec="$TMP/plug-rec" shell t rc why=
	shell=$(basename "$(readlink -f /bin/sh)")
	printf '%s\n' '#include <fcntl.h>' '#include <stdio.h>' '#include <unistd.h>' \
		'__attribute__((constructor)) static void ran(void)' \
		"{ int fd = open(\"$mark\", O_WRONLY | O_CREAT | O_APPEND, 0666);" \
		'  if (fd >= 0) { dprintf(fd, "uid%d\n", (int)geteuid()); close(fd); } }' \
		'int TEP_PLUGIN_LOADER(void *tep) { (void)tep; return 0; }' >"$TMP/plugin_evil.c"
	if ! cc -shared -fPIC -o "$TMP/plugin_evil.so" "$TMP/plugin_evil.c" 2>"$TMP/home-plugins.err"; then
		fail home-plugins "cannot build the plugin: $(first_lines "$TMP/home-plugins.err")"
		return
	fi
	chmod 644 "$TMP/plugin_evil.so"
	as_attacker mkdir -p "$h/.local/lib/traceevent/plugins" "$pdir" "$h/libexec"
	as_attacker cp "$TMP/plugin_evil.so" "$h/.local/lib/traceevent/plugins/"
	as_attacker cp "$TMP/plugin_evil.so" "$pdir/"
	as_attacker sh -c 'printf "[buildid]\n\tdir = %s\n" "$1" >"$2"' sh "$h/cache" "$h/perfconfig"
	if ! timeout -k 5 60 "$RECORD" -q -o "$rec" --trigger none -- \
		/bin/sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' 2>"$TMP/home-plugins.err"; then
		fail home-plugins "root's recording failed: $(first_lines "$TMP/home-plugins.err")"
		return
	fi
	HOME="$h" timeout -k 5 60 perf script -i "$(ls "$rec"/perf.data* | head -n 1)" >/dev/null 2>&1
	if ! grep -qx uid0 "$mark" 2>/dev/null; then
		fail home-plugins "plain perf script with the attacker's HOME did not load the plugin"
		return
	fi
	rm -f "$mark"
	for t in convert record run; do
		rm -rf "$TMP/plug-$t" "$TMP/plug-$t.fxt"
		case $t in
		convert)
			HOME="$h" TRACEEVENT_PLUGIN_DIR="$pdir" PERF_CONFIG="$h/perfconfig" \
				PERF_EXEC_PATH="$h/libexec" timeout -k 5 60 "$CONVERT" -q "$rec" \
				-o "$TMP/plug-$t.fxt" 2>"$TMP/home-plugins.err" ;;
		record)
			HOME="$h" TRACEEVENT_PLUGIN_DIR="$pdir" PERF_CONFIG="$h/perfconfig" \
				PERF_EXEC_PATH="$h/libexec" timeout -k 5 60 "$RECORD" -q --trigger none \
				--duration 0.3 -o "$TMP/plug-$t" -- /bin/true 2>"$TMP/home-plugins.err" &&
				"$CONVERT" -q "$TMP/plug-$t" -o "$TMP/plug-$t.fxt" 2>>"$TMP/home-plugins.err" ;;
		run)
			HOME="$h" TRACEEVENT_PLUGIN_DIR="$pdir" PERF_CONFIG="$h/perfconfig" \
				PERF_EXEC_PATH="$h/libexec" timeout -k 5 60 "$FRONT" run -q --trigger none \
				--duration 0.3 -o "$TMP/plug-$t.fxt" -- /bin/true 2>"$TMP/home-plugins.err" ;;
		esac
		rc=$?
		if [ -s "$mark" ]; then
			why+="$t: the attacker's plugin ran: $(sort -u "$mark" | tr '\n' ' '); "
		elif [ "$rc" -ne 0 ]; then
			why+="$t: exit $rc: $(first_lines "$TMP/home-plugins.err"); "
		elif ! "$CONVERT" --dump=records "$TMP/plug-$t.fxt" 2>&1 |
			grep -Eq '^[0-9]+ kobj thread koid=[0-9]+ name="('"$shell"'|true) \['; then
			why+="$t: the trace names no thread of the program; "
		elif [ -e "$h/cache" ]; then
			why+="$t: perf wrote into the build-id cache the attacker's PERF_CONFIG names; "
		fi
		rm -f "$mark"
	done
	verdict home-plugins "$why"
}

# Root's program (a function spinning 300 ms), its copy by the attacker with
# the function renamed and the build id kept, profiled by root with plain
# perf record into the build-id cache of HOME=$TMP/roothome; then root's
# snaptrace recording of its own program, converted.
in_buildid_cache() {
	local h="$TMP/roothome" prog="$TMP/bidprog" evil="$HOME_A/bidprog" rc
	mkdir -m 700 "$h"
	spin_source root_own_function 300 >"$TMP/bidprog.c"
	if ! cc -std=c11 -O1 -g -fno-omit-frame-pointer -Wl,--build-id -o "$prog" "$TMP/bidprog.c" \
		2>"$TMP/in-buildid-cache.err"; then
		fail in-buildid-cache "cannot compile: $(first_lines "$TMP/in-buildid-cache.err")"
		return
	fi
	as_attacker objcopy --redefine-sym root_own_function=attacker_forged_name "$prog" "$evil"
	HOME="$h" timeout -k 5 60 perf record -q -o "$TMP/bid-plain.data" -- "${ATTACKER[@]}" "$evil" \
		>/dev/null 2>&1
	if ! grep -rqs attacker_forged_name "$h/.debug"; then
		fail in-buildid-cache "plain perf record did not cache the attacker's program: $(ls -R "$h" | head -c 300)"
		return
	fi
	rm -rf "$TMP/bid-rec"
	if ! HOME="$h" timeout -k 5 60 "$RECORD" -q -o "$TMP/bid-rec" --trigger none -- "$prog" \
		2>"$TMP/in-buildid-cache.err"; then
		fail in-buildid-cache "root's recording failed: $(first_lines "$TMP/in-buildid-cache.err")"
		return
	fi
	HOME="$h" timeout -k 5 60 "$CONVERT" -q "$TMP/bid-rec" -o "$TMP/bid.fxt" 2>"$TMP/in-buildid-cache.err"
	rc=$?
	"$CONVERT" --dump=slices "$TMP/bid.fxt" >"$TMP/bid.slices" 2>&1
	if [ "$rc" -ne 0 ]; then
		fail in-buildid-cache "exit $rc: $(first_lines "$TMP/in-buildid-cache.err")"
	elif grep -q attacker_forged_name "$TMP/bid.slices"; then
		fail in-buildid-cache "a frame of root's program is named from the attacker's copy in ~/.debug"
	elif ! grep -q " root_own_function$" "$TMP/bid.slices"; then
		fail in-buildid-cache "root's function is not named: $(grep -c . "$TMP/bid.slices") slices"
	elif find "$h/.debug" -path "*$TMP/bidprog*" | grep -q .; then
		fail in-buildid-cache "the recorder added root's program to the build-id cache"
	else
		ok in-buildid-cache
	fi
}

# Root's recording of a shell loop, the source of the kept_ tests.
kept_tests() {
	local t
	KEPT_EXE=$(readlink -f /bin/sh)
	if ! timeout -k 5 60 "$RECORD" -q -o "$KEPT_SRC" --trigger none -- \
		/bin/sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' 2>"$TMP/kept-src.err"; then
		for t in in-kept-fifo in-kept-link-out in-kept-swapped in-kept-stale in-kept-dir-link; do
			fail "$t" "recording failed: $(first_lines "$TMP/kept-src.err")"
		done
		return
	fi
	KEPT_ID=$(perf buildid-list -i "$(ls "$KEPT_SRC"/perf.data* | head -n 1)" 2>/dev/null |
		awk -v exe="$KEPT_EXE" '$2 == exe { print $1 }')
	if [ -z "$KEPT_ID" ]; then
		for t in in-kept-fifo in-kept-link-out in-kept-swapped in-kept-stale in-kept-dir-link; do
			fail "$t" "no build id of $KEPT_EXE in the recording"
		done
		return
	fi
	in_kept_fifo
	in_kept_link_out
	in_kept_swapped
	in_kept_stale
	in_kept_dir_link
}

# link_refused NAME RC ERR PATH: RC is 1 or 2 (not blocked), ERR is one line
# naming PATH and the rule, no secret shown; returns 1 after a FAIL.
link_refused() {
	if blocked "$2"; then
		fail "$1" "blocked on $4"
	elif [ "$2" -ne 1 ] && [ "$2" -ne 2 ]; then
		fail "$1" "$4: exit $2, expected a refusal: $(first_lines "$3")"
	elif [ "$(wc -l <"$3")" -ne 1 ] ||
		! grep -q "^[a-z-]*: $4: .*not following the symbolic link [a-z.]* of uid $AUID in a world-writable sticky directory .*fs.protected_symlinks" "$3"; then
		fail "$1" "$4: expected one line naming it and the rule: $(first_lines "$3")"
	elif grep -q "$SECRET_WORD" "$3"; then
		fail "$1" "$4: the root-only file's text was shown"
	else
		return 0
	fi
	return 1
}

in_link_shared() {
	local d="$SHARED/links" rc p
	mkdir -m 1777 "$d"
	mkdir -m 700 "$TMP/private" "$TMP/private/rec"
	cp "$SECRET" "$TMP/private/rec/record.json"
	as_attacker ln -s "$SECRET" "$d/in.txt"
	as_attacker ln -s "$SECRET" "$d/perf.data"
	as_attacker ln -s "$SECRET" "$d/t.fxt"
	as_attacker ln -s "$TMP/private/rec" "$d/rec"
	as_attacker ln -s "$TMP/private" "$d/via"
	for p in "$d/in.txt" "$d/perf.data" "$d/rec" "$d/via/rec"; do
		timeout -k 5 20 "$CONVERT" "$p" -o "$TMP/in-link.fxt" >/dev/null 2>"$TMP/in-link-shared.err"
		link_refused in-link-shared $? "$TMP/in-link-shared.err" "$p" || return
	done
	for p in "$d/t.fxt" "$d/rec"; do
		timeout -k 5 20 "$STATS" "$p" >"$TMP/in-link-shared.out" 2>"$TMP/in-link-shared.err"
		link_refused in-link-shared $? "$TMP/in-link-shared.err" "$p" || return
		if grep -q "$SECRET_WORD" "$TMP/in-link-shared.out"; then
			fail in-link-shared "stats $p: the root-only file's text was shown"
			return
		fi
	done
	# what the kernel's rule follows: root's own link in the shared
	# directory, the attacker's in the attacker's own directory
	ln -s "$IN" "$d/root.txt"
	as_attacker ln -s "$HOME_A/in.txt" "$HOME_A/own.txt"
	for p in "$d/root.txt" "$HOME_A/own.txt"; do
		if ! timeout -k 5 20 "$CONVERT" -q "$p" -o "$TMP/in-link.fxt" 2>"$TMP/in-link-shared.err" ||
			! "$CONVERT" --dump=slices "$TMP/in-link.fxt" 2>/dev/null | slices_match - "$EXPECTED" >/dev/null; then
			fail in-link-shared "$p: a link the kernel's rule follows did not convert: $(first_lines "$TMP/in-link-shared.err")"
			return
		fi
	done
	ok in-link-shared
}

in_link_nonsticky() {
	local d="$TMP/open777" p rc prog
	mkdir -m 777 "$d"
	as_attacker ln -s "$SECRET" "$d/in.txt"
	as_attacker ln -s "$SECRET" "$d/t.fxt"
	ln -s "$SECRET" "$d/root.txt"
	for p in "$d/in.txt" "$d/t.fxt" "$d/root.txt"; do
		for prog in "$CONVERT" "$STATS"; do
			[ "$prog" = "$STATS" ] && [ "$p" != "$d/t.fxt" ] && continue
			if [ "$prog" = "$CONVERT" ]; then
				timeout -k 5 20 "$CONVERT" "$p" -o "$TMP/in-link-nonsticky.fxt" \
					>"$TMP/in-link-nonsticky.out" 2>"$TMP/in-link-nonsticky.err"
			else
				timeout -k 5 20 "$STATS" "$p" >"$TMP/in-link-nonsticky.out" \
					2>"$TMP/in-link-nonsticky.err"
			fi
			rc=$?
			if blocked "$rc"; then
				fail in-link-nonsticky "blocked on $p"
			elif grep -q "$SECRET_WORD" "$TMP/in-link-nonsticky.out" "$TMP/in-link-nonsticky.err"; then
				fail in-link-nonsticky "$p: the root-only file's text was shown (exit $rc)"
			elif [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
				fail in-link-nonsticky "$p: exit $rc, expected a refusal: $(first_lines "$TMP/in-link-nonsticky.err")"
			elif [ "$(wc -l <"$TMP/in-link-nonsticky.err")" -ne 1 ] ||
				! grep -q "^[a-z-]*: $p: .*not following the symbolic link [a-z.]* of uid [0-9]* in a non-sticky writable directory .*fs.protected_symlinks" \
					"$TMP/in-link-nonsticky.err"; then
				fail in-link-nonsticky "$p: expected one line naming it and the rule: $(first_lines "$TMP/in-link-nonsticky.err")"
			else
				continue
			fi
			return
		done
	done
	ok in-link-nonsticky
}

hang_symbols_fifo() {
	local rc
	as_attacker mkfifo "$SHARED/prog"
	timeout -k 5 20 "$FRONT" symbols "$SHARED/prog" >/dev/null 2>"$TMP/hang-symbols-fifo.err"
	rc=$?
	! blocked "$rc" || { fail hang-symbols-fifo "snaptrace symbols blocked"; return; }
	refuses "$rc" hang-symbols-fifo 2 "$SHARED/prog: a FIFO, expected a regular file" "$TMP/hang-symbols-fifo.err" &&
		ok hang-symbols-fifo
}

hang_stats_fifo() {
	local rc
	as_attacker mkfifo "$SHARED/stats-in.fxt"
	timeout -k 5 20 "$STATS" "$SHARED/stats-in.fxt" >/dev/null 2>"$TMP/hang-stats-fifo.err"
	rc=$?
	! blocked "$rc" || { fail hang-stats-fifo "snaptrace stats blocked"; return; }
	refuses "$rc" hang-stats-fifo 2 "$SHARED/stats-in.fxt: .*a FIFO, expected a regular file\$" \
		"$TMP/hang-stats-fifo.err" && ok hang-stats-fifo
}

hang_convert_fifo() {
	local rc
	as_attacker mkfifo "$SHARED/in.txt"
	timeout -k 5 20 "$CONVERT" "$SHARED/in.txt" -o "$TMP/hang-convert-fifo.fxt" >/dev/null \
		2>"$TMP/hang-convert-fifo.err"
	rc=$?
	! blocked "$rc" || { fail hang-convert-fifo "the converter blocked"; return; }
	refuses "$rc" hang-convert-fifo 2 "$SHARED/in.txt: a FIFO, expected a regular file, or a pipe as standard input or from <\(\.\.\.\)\$" \
		"$TMP/hang-convert-fifo.err" || return
	if ! cat "$IN" | timeout -k 5 20 "$CONVERT" -q /dev/stdin -o "$TMP/pipe.fxt" 2>"$TMP/pipe.err" ||
		! "$CONVERT" --dump=slices "$TMP/pipe.fxt" 2>/dev/null | slices_match - "$EXPECTED" >/dev/null; then
		fail hang-convert-fifo "a pipe on /dev/stdin did not convert: $(first_lines "$TMP/pipe.err")"
	else
		ok hang-convert-fifo
	fi
}

# theirs_pt_rootonly: see the header.
theirs_pt_rootonly() {
	local priv="$ROOTONLY/theirs-pt" mine="$HOME_A/pt-theirs.data" n
	requires theirs-pt-rootonly ptsynth perf ptrace || return
	mkdir -p -m 700 "$priv"
	cp "$SNAPTRACE_TEST_BIN/ptsynth-progs/calls-static" "$priv/ptprog"
	if ! timeout -k 5 120 "$SNAPTRACE_TEST_BIN/ptsynth" -q -o "$TMP/pt-theirs.data" -- "$priv/ptprog" \
		>/dev/null 2>"$TMP/theirs-pt-rootonly.err"; then
		fail theirs-pt-rootonly "the generator failed: $(first_lines "$TMP/theirs-pt-rootonly.err")"
		return
	fi
	chmod 644 "$TMP/pt-theirs.data"
	as_attacker cp "$TMP/pt-theirs.data" "$mine"
	timeout -k 5 60 "$CONVERT" -q "$TMP/pt-theirs.data" -o "$TMP/theirs-pt-root.fxt" 2>"$TMP/theirs-pt-rootonly.err"
	n=$("$CONVERT" --dump=records "$TMP/theirs-pt-root.fxt" 2>&1 | grep -ac "cat=\"$priv/ptprog\" name=\"[^[]")
	if [ "$n" -eq 0 ]; then
		fail theirs-pt-rootonly "root's own recording names no function of the program: $(first_lines "$TMP/theirs-pt-rootonly.err")"
	elif ! timeout -k 5 60 "$CONVERT" -q "$mine" -o "$TMP/theirs-pt.fxt" 2>"$TMP/theirs-pt-rootonly.err"; then
		fail theirs-pt-rootonly "the conversion failed: $(first_lines "$TMP/theirs-pt-rootonly.err")"
	elif ! "$CONVERT" --dump=records "$TMP/theirs-pt.fxt" >"$TMP/theirs-pt-rootonly.records" 2>&1 ||
		! grep -q 'name="ptprog \[' "$TMP/theirs-pt-rootonly.records"; then
		fail theirs-pt-rootonly "the trace has no thread of the program: $(first_lines "$TMP/theirs-pt-rootonly.records")"
	elif grep -aq "cat=\"$priv/ptprog\" name=\"[^[]" "$TMP/theirs-pt-rootonly.records"; then
		fail theirs-pt-rootonly "the root-only binary named her frames: $(grep -a -m1 "cat=\"$priv/ptprog\" name=\"[^[]" "$TMP/theirs-pt-rootonly.records" | cut -c 1-200)"
	else
		ok theirs-pt-rootonly
	fi
}

hang_pt_dso_fifo() {
	local bin="$HOME_A/ptprog" rc
	requires hang-pt-dso-fifo ptsynth perf ptrace || return
	as_attacker sh -c 'cat >"$1" && chmod 755 "$1"' sh "$bin" <"$SNAPTRACE_TEST_BIN/ptsynth-progs/calls-static"
	if ! timeout -k 5 120 "$SNAPTRACE_TEST_BIN/ptsynth" -q -o "$TMP/pt-fifo.data" -- "$bin" \
		>/dev/null 2>"$TMP/hang-pt-dso-fifo.err"; then
		fail hang-pt-dso-fifo "the generator failed: $(first_lines "$TMP/hang-pt-dso-fifo.err")"
		return
	fi
	as_attacker sh -c 'rm "$1" && mkfifo "$1"' sh "$bin"
	timeout -k 5 60 "$CONVERT" "$TMP/pt-fifo.data" -o "$TMP/pt-fifo.fxt" >/dev/null \
		2>"$TMP/hang-pt-dso-fifo.err"
	rc=$?
	if blocked "$rc"; then
		fail hang-pt-dso-fifo "the converter blocked on the FIFO"
	elif [ "$rc" -ne 0 ]; then
		fail hang-pt-dso-fifo "exit $rc: $(first_lines "$TMP/hang-pt-dso-fifo.err")"
	elif ! grep -q "decoding through perf script: $bin: a FIFO, expected a regular file" "$TMP/hang-pt-dso-fifo.err"; then
		fail hang-pt-dso-fifo "the FIFO is not named: $(first_lines "$TMP/hang-pt-dso-fifo.err")"
	elif ! "$CONVERT" --dump=records "$TMP/pt-fifo.fxt" 2>/dev/null | grep -q 'name="ptprog \['; then
		fail hang-pt-dso-fifo "the trace has no thread of the program"
	else
		ok hang-pt-dso-fifo
	fi
}

# The attacker's program in their own directory ($HOME_A/dso/prog, its
# function dso_attacker_work), recorded by root into $TMP/dso-rec; returns 1
# after a FAIL of both tests.
dso_recording() {
	spin_source dso_attacker_work 300 >"$TMP/dso-prog.c"
	if ! cc -O1 -fno-omit-frame-pointer -o "$TMP/dso-prog" "$TMP/dso-prog.c" 2>"$TMP/dso-rec.err" ||
		! as_attacker mkdir -m 755 "$HOME_A/dso" || ! as_attacker cp "$TMP/dso-prog" "$HOME_A/dso/prog" ||
		! timeout -k 5 60 "$RECORD" -q -o "$TMP/dso-rec" --trigger none --duration 0.3 -- \
		"$HOME_A/dso/prog" >/dev/null 2>>"$TMP/dso-rec.err"; then
		fail in-dso-link "root's recording failed: $(first_lines "$TMP/dso-rec.err")"
		fail in-dso-swapped "root's recording failed: $(first_lines "$TMP/dso-rec.err")"
		return 1
	fi
}

# dso_converted NAME OUT RC: the conversion (exit RC, into OUT) ended, with a
# trace of the program's samples (named, or unnamed frames of its path);
# returns 1 after a FAIL.
dso_converted() {
	if blocked "$3"; then
		fail "$1" "the conversion blocked (perf opened the FIFO by name): $(first_lines "$TMP/$1.err")"
	elif [ "$3" -ne 0 ]; then
		fail "$1" "exit $3: $(first_lines "$TMP/$1.err")"
	elif ! "$CONVERT" --dump=slices "$2" >"$TMP/$1.slices" 2>&1 ||
		! grep -Eq " dso_attacker_work$|\($HOME_A/dso/prog\)" "$TMP/$1.slices"; then
		fail "$1" "no frame of the program in the trace: $(first_lines "$TMP/$1.slices")"
	else
		return 0
	fi
	return 1
}

in_dso_link() {
	local d="$HOME_A/dso" secret="$ROOTONLY/dso-secret" out="$TMP/in-dso-link.fxt" rc
	objcopy --redefine-sym dso_attacker_work=root_secret_function "$TMP/dso-prog" "$secret"
	chmod 700 "$secret"
	as_attacker mv "$d/prog" "$d/prog.real"
	as_attacker ln -s "$secret" "$d/prog"
	timeout -k 5 20 "$CONVERT" -q "$TMP/dso-rec" -o "$out" 2>"$TMP/in-dso-link.err"
	rc=$?
	if [ "$rc" -eq 0 ] && "$CONVERT" --dump=slices "$out" 2>&1 | grep -q root_secret_function; then
		fail in-dso-link "the root-only file's function is in the trace (perf followed the attacker's link)"
	elif ! dso_converted in-dso-link "$out" "$rc"; then
		:
	elif ! grep -q "$d/prog: a symbolic link" "$TMP/in-dso-link.err"; then
		fail in-dso-link "no warning names the link: $(first_lines "$TMP/in-dso-link.err")"
	else
		ok in-dso-link
	fi
	as_attacker rm "$d/prog"
	as_attacker mv "$d/prog.real" "$d/prog"
	rm -f "$secret"
}

in_dso_swapped() {
	local d="$HOME_A/dso" out="$TMP/in-dso-swapped.fxt" i n rc swapper ok=1 named=0
	cat >"$TMP/dso-swap.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	while (access("stop", F_OK))
		for (int i = 0; i < 1000; i++)
			if (renameat2(AT_FDCWD, "prog", AT_FDCWD, "fifo", RENAME_EXCHANGE)) {
				perror("renameat2");
				return 1;
			}
	return 0;
}
EOF
	if ! cc -o "$TMP/dso-swap" "$TMP/dso-swap.c" 2>"$TMP/in-dso-swapped.swapper"; then
		fail in-dso-swapped "cannot build the swapper: $(first_lines "$TMP/in-dso-swapped.swapper")"
		return
	fi
	as_attacker mkfifo -m 644 "$d/fifo"
	(cd "$d" && exec "${ATTACKER[@]}" "$TMP/dso-swap") 2>"$TMP/in-dso-swapped.swapper" &
	swapper=$!
	# main hung 7 of 40 here (one in six): 24 find it but one time in 80
	n=$(stress_count 24 100)
	for i in $(seq "$n"); do
		timeout -k 5 20 "$CONVERT" -q "$TMP/dso-rec" -o "$out" 2>"$TMP/in-dso-swapped.err"
		rc=$?
		dso_converted in-dso-swapped "$out" "$rc" || { ok=0; break; }
		grep -q " dso_attacker_work$" "$TMP/in-dso-swapped.slices" && named=$((named + 1))
	done
	as_attacker touch "$d/stop"
	wait "$swapper"
	if [ "$ok" = 1 ] && [ -s "$TMP/in-dso-swapped.swapper" ]; then
		fail in-dso-swapped "the swapper failed: $(first_lines "$TMP/in-dso-swapped.swapper")"
	elif [ "$ok" = 1 ]; then
		echo "# in-dso-swapped: $n conversions, the function named in $named"
		ok in-dso-swapped
	fi
}

hang_dso_fifo() {
	local rc
	as_attacker mkfifo "$SHARED/lib.so"
	sed "s|(/opt/app)|($SHARED/lib.so)|g" "$IN" >"$TMP/dso.txt"
	timeout -k 5 20 "$CONVERT" -q "$TMP/dso.txt" -o "$TMP/hang-dso-fifo.fxt" 2>"$TMP/hang-dso-fifo.err"
	rc=$?
	if blocked "$rc"; then
		fail hang-dso-fifo "the converter blocked on the FIFO"
	elif [ "$rc" -ne 0 ]; then
		fail hang-dso-fifo "exit $rc: $(first_lines "$TMP/hang-dso-fifo.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/hang-dso-fifo.fxt" >"$TMP/hang-dso-fifo.slices" 2>&1 ||
		! slices_match "$TMP/hang-dso-fifo.slices" "$EXPECTED" >/dev/null; then
		fail hang-dso-fifo "wrong trace: $(first_lines "$TMP/hang-dso-fifo.slices")"
	else
		ok hang-dso-fifo
	fi
}

# maxrss CMD...: runs CMD, then prints its peak resident memory (KiB) on fd 3;
# returns CMD's status.
maxrss() {
	python3 -c 'import resource, subprocess, sys, os
rc = subprocess.call(sys.argv[1:])
os.write(3, b"%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$@"
}

# dwarf_bombs DIR: DIR/gnu and DIR/gabi, tests/cases/call-return's program
# (main, a, b, c) built with -g and a compressed .zdebug_addr (GNU) or
# .debug_addr (SHF_COMPRESSED) of 256 MiB of zeros; DIR/gnu.txt and
# DIR/gabi.txt, the case's text at the addresses of each (as a PIE at
# 0x555555554000).
dwarf_bombs() {
	local d=$1
	printf '%s\n' 'int c(void) { return 3; }' 'int b(void) { return 2; }' \
		'int a(void) { return b() + c(); }' 'int main(void) { return a(); }' >"$d/calls.c"
	cc -g -O0 -o "$d/calls" "$d/calls.c" || return 1
	python3 - "$d" <<'PY' || return 1
import struct, subprocess, sys, zlib
d = sys.argv[1]
n = 256 << 20
z = zlib.compressobj(9)
stream = b"".join(z.compress(bytes(1 << 20)) for _ in range(n >> 20)) + z.flush()
open(d + "/gnu.sec", "wb").write(b"ZLIB" + struct.pack(">Q", n) + stream)
open(d + "/gabi.sec", "wb").write(struct.pack("<IIQQ", 1, 0, n, 1) + stream)
subprocess.check_call(["objcopy", "--add-section", ".zdebug_addr=%s/gnu.sec" % d, d + "/calls", d + "/gnu"])
subprocess.check_call(["objcopy", "--add-section", ".debug_addr=%s/gabi.sec" % d,
                       "--set-section-alignment", ".debug_addr=8", d + "/calls", d + "/gabi"])
# .debug_addr of gabi: SHF_COMPRESSED (ELF64 little-endian section headers)
elf = bytearray(open(d + "/gabi", "rb").read())
shoff, = struct.unpack_from("<Q", elf, 0x28)
shent, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
stroff, = struct.unpack_from("<Q", elf, shoff + shstrndx * shent + 0x18)
for i in range(shnum):
    h = shoff + i * shent
    name = elf[stroff + struct.unpack_from("<I", elf, h)[0]:].split(b"\0")[0]
    if name == b".debug_addr":
        flags, = struct.unpack_from("<Q", elf, h + 8)
        struct.pack_into("<Q", elf, h + 8, flags | 0x800)
open(d + "/gabi", "wb").write(elf)
PY
	calls_text "$d/calls" HOME/gnu "$d/gnu.txt" && calls_text "$d/calls" HOME/gabi "$d/gabi.txt"
}

# calls_text BIN DSO OUT: tests/cases/call-return's text into OUT, its frames
# of /opt/app at the addresses of BIN's main, a, b and c (as a PIE at
# 0x555555554000), named as in DSO.
calls_text() {
	python3 - "$1" "$2" "$IN" >"$3" <<'PY'
import re, subprocess, sys
binary, dso, text = sys.argv[1:]
syms = {}
for line in subprocess.check_output(["nm", binary], text=True).splitlines():
    f = line.split()
    if len(f) == 3 and f[2] in ("main", "a", "b", "c"):
        syms[f[2]] = int(f[0], 16)
def at(m):
    name, off = m.group(2), int(m.group(3), 16)
    if m.group(4) != "/opt/app" or name not in syms:
        return m.group(0)
    return "%x %s+0x%x (%s)" % (0x555555554000 + syms[name] + off, name, off, dso)
for line in open(text):
    sys.stdout.write(re.sub(r"([0-9a-f]+) (\w+)\+0x([0-9a-f]+) \(([^)]*)\)", at, line))
PY
}

in_dwarf_bomb() {
	local d="$TMP/bomb" prog rc kib sec
	mkdir "$d"
	if ! dwarf_bombs "$d" >"$TMP/in-dwarf-bomb.err" 2>&1; then
		fail in-dwarf-bomb "cannot build the programs: $(first_lines "$TMP/in-dwarf-bomb.err")"
		return
	fi
	for prog in gnu gabi; do
		as_attacker sh -c 'cat >"$1" && chmod 755 "$1"' sh "$HOME_A/$prog" <"$d/$prog"
		sed "s|(HOME/|($HOME_A/|g" "$d/$prog.txt" >"$TMP/bomb-$prog.txt"
		sec=.debug_addr
		[ "$prog" = gnu ] && sec=.zdebug_addr
		kib=$(maxrss timeout -k 5 60 "$CONVERT" -q "$TMP/bomb-$prog.txt" -o "$TMP/bomb-$prog.fxt" \
			3>&1 2>"$TMP/in-dwarf-bomb.err")
		rc=$?
		if [ "$rc" -ne 0 ]; then
			fail in-dwarf-bomb "$prog: exit $rc: $(first_lines "$TMP/in-dwarf-bomb.err")"
		elif [ "$kib" -ge $((160 * 1024)) ]; then
			fail in-dwarf-bomb "$prog: the converter held $((kib / 1024)) MiB (the section inflated)"
		elif [ "$(wc -l <"$TMP/in-dwarf-bomb.err")" -ne 1 ] || ! grep -q "warning: $HOME_A/$prog: section $sec inflates to 268435456 bytes from [0-9]* (more than 64 times): its source lines are not read" "$TMP/in-dwarf-bomb.err"; then
			fail in-dwarf-bomb "$prog: expected one warning naming the binary and the section: $(first_lines "$TMP/in-dwarf-bomb.err")"
		elif ! "$CONVERT" --dump=slices "$TMP/bomb-$prog.fxt" >"$TMP/bomb-$prog.slices" 2>&1 ||
			! slices_match "$TMP/bomb-$prog.slices" "$EXPECTED" >/dev/null; then
			fail in-dwarf-bomb "$prog: wrong trace: $(first_lines "$TMP/bomb-$prog.slices")"
		elif "$CONVERT" --dump=records "$TMP/bomb-$prog.fxt" 2>&1 | grep -q 'line:uint64'; then
			fail in-dwarf-bomb "$prog: the trace has source lines of the bomb"
		else
			continue
		fi
		return
	done
	# the recorder resolves line:FILE:LINE before it runs anything
	kib=$(maxrss timeout -k 5 60 "$RECORD" -q -o "$TMP/bomb-rec" --trigger line:calls.c:2 -- \
		"$HOME_A/gnu" 3>&1 2>"$TMP/in-dwarf-bomb.err")
	rc=$?
	if [ "$kib" -ge $((160 * 1024)) ]; then
		fail in-dwarf-bomb "the recorder held $((kib / 1024)) MiB (the section inflated)"
	else
		refuses "$rc" in-dwarf-bomb 1 "$HOME_A/gnu: cannot read: section .zdebug_addr inflates to 268435456 bytes" \
			"$TMP/in-dwarf-bomb.err" && ok in-dwarf-bomb
	fi
}

# dwz_programs DIR: DIR/one and DIR/two, tests/cases/call-return's program
# (main, a, b, c; two has one more function) built with -gdwarf-4 and
# their common DWARF moved by dwz -m into DIR/alt.common, which their
# .gnu_debugaltlink names $HOME_A/alt.debug (the attacker's); DIR/one.txt
# the case's text at one's addresses, as $HOME_A/one.
dwz_programs() {
	local d=$1
	printf '%s\n' 'struct big1 { int a, b, c, d, e, f, g, h; long x[4]; };' \
		'struct big2 { struct big1 one; double q, r, s; char name[32]; };' \
		'static inline int use(struct big2 *p) { return p->one.a + (int)p->q; }' >"$d/calls.h"
	printf '%s\n' '#include "calls.h"' 'int c(void) { struct big2 z = { 0 }; return use(&z) + 3; }' \
		'int b(void) { return 2; }' 'int a(void) { return b() + c(); }' \
		'int main(void) { return a(); }' >"$d/one.c"
	sed 's/^int b(void)/int b2(void) { return 5; }\nint b(void)/' "$d/one.c" >"$d/two.c"
	(cd "$d" && cc -gdwarf-4 -O0 -o one one.c && cc -gdwarf-4 -O0 -o two two.c &&
		dwz -m alt.common -M "$HOME_A/alt.debug" one two) || return 1
	calls_text "$d/one" "$HOME_A/one" "$d/one.txt"
}

# dwz_convert NAME: root converts the text of the attacker's dwz program
# (dwz_programs) to $TMP/NAME.fxt within 20 s; returns 1 after a FAIL (the
# converter blocked, failed or wrote a wrong trace).
dwz_convert() {
	local rc
	timeout -k 5 20 "$CONVERT" -q "$TMP/dwz/one.txt" -o "$TMP/$1.fxt" 2>"$TMP/$1.err"
	rc=$?
	if blocked "$rc"; then
		fail "$1" "the converter blocked (libdw opened the altlink's name)"
	elif [ "$rc" -ne 0 ]; then
		fail "$1" "exit $rc: $(first_lines "$TMP/$1.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/$1.fxt" >"$TMP/$1.slices" 2>&1 ||
		! slices_match "$TMP/$1.slices" "$EXPECTED" >/dev/null; then
		fail "$1" "wrong trace: $(first_lines "$TMP/$1.slices")"
	else
		return 0
	fi
	return 1
}

# The attacker's programs whose DWARF dwz split: their supplementary file
# (.gnu_debugaltlink) is looked for at the attacker's name: the real file
# gives the lines its directory; a FIFO, or a link to a root-only ELF file
# whose .debug_str holds the secret word at the offset one's comp_dir gives,
# is not opened by name.
in_dwz_altlink() {
	local d="$TMP/dwz" alt="$HOME_A/alt.debug" off rc
	mkdir "$d"
	if ! dwz_programs "$d" >"$TMP/in-dwz-altlink.err" 2>&1; then
		fail in-dwz-altlink "cannot build the programs: $(first_lines "$TMP/in-dwz-altlink.err")"
		return
	fi
	as_attacker sh -c 'cat >"$1" && chmod 755 "$1"' sh "$HOME_A/one" <"$d/one"
	as_attacker sh -c 'cat >"$1" && chmod 644 "$1"' sh "$alt" <"$d/alt.common"
	# the real file: the CU's directory (a DW_FORM_GNU_strp_alt) read from it
	dwz_convert in-dwz-altlink || return
	if ! "$CONVERT" --dump=records "$TMP/in-dwz-altlink.fxt" 2>&1 | grep -q "$d/one.c"; then
		fail in-dwz-altlink "the real supplementary file gave no source path $d/one.c"
		return
	fi
	# a root-only ELF file, its .debug_str the secret word at one's comp_dir offset
	printf 'const char *%s = "x";\nint main(void) { return 0; }\n' "$SECRET_WORD" | tr - _ >"$d/s.c"
	cc -g -o "$ROOTONLY/secret-dbg" -x c "$d/s.c" && chmod 600 "$ROOTONLY/secret-dbg" || return
	off=$(python3 - "$d/one" "$ROOTONLY/secret-dbg" "${SECRET_WORD//-/_}" <<'PY'
import re, struct, subprocess, sys
one, secret, word = sys.argv[1:]
def section(path, name):
    out = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True).stdout
    m = re.search(r"\s" + re.escape(name) + r"\s+\S+\s+\S+\s+(\S+)\s+(\S+)", out)
    return int(m.group(1), 16), int(m.group(2), 16)
o, n = section(secret, ".debug_str")
want = open(secret, "rb").read()[o:o + n].index(word.encode())
info = subprocess.run(["readelf", "-wi", one], capture_output=True, text=True).stdout
at = int(re.search(r"<([0-9a-f]+)>\s+DW_AT_comp_dir\s+: \(alt indirect string", info).group(1), 16)
o, n = section(one, ".debug_info")
elf = bytearray(open(one, "rb").read())
struct.pack_into("<I", elf, o + at, want)
open(one, "wb").write(elf)
PY
	) || { fail in-dwz-altlink "cannot point one's comp_dir into the root-only file"; return; }
	as_attacker sh -c 'cat >"$1"' sh "$HOME_A/one" <"$d/one"
	as_attacker sh -c 'rm "$1" && ln -s "$2" "$1"' sh "$alt" "$ROOTONLY/secret-dbg"
	dwz_convert in-dwz-altlink || return
	if "$CONVERT" --dump=records "$TMP/in-dwz-altlink.fxt" 2>&1 | grep -q "${SECRET_WORD//-/_}"; then
		fail in-dwz-altlink "the root-only file's string is in the trace"
		return
	elif ! grep -q "warning: $HOME_A/one: its supplementary DWARF file (.gnu_debugaltlink) $alt: another build id" \
		"$TMP/in-dwz-altlink.err"; then
		fail in-dwz-altlink "expected a warning naming the link: $(first_lines "$TMP/in-dwz-altlink.err")"
		return
	fi
	# a FIFO: the converter and the recorder's line: trigger do not wait on it
	as_attacker sh -c 'rm "$1" && mkfifo "$1"' sh "$alt"
	dwz_convert in-dwz-altlink || return
	if ! grep -q "$alt: a FIFO, expected a regular file: its source lines are not read" \
		"$TMP/in-dwz-altlink.err"; then
		fail in-dwz-altlink "expected a warning naming the FIFO: $(first_lines "$TMP/in-dwz-altlink.err")"
		return
	fi
	timeout -k 5 20 "$RECORD" -q -o "$TMP/dwz-rec" --trigger line:one.c:3 -- "$HOME_A/one" \
		>/dev/null 2>"$TMP/in-dwz-altlink.err"
	rc=$?
	if blocked "$rc"; then
		fail in-dwz-altlink "the recorder blocked on the FIFO"
	else
		refuses "$rc" in-dwz-altlink 1 "$HOME_A/one: cannot read: its supplementary DWARF file \(.gnu_debugaltlink\) $alt: a FIFO" \
			"$TMP/in-dwz-altlink.err" && ok in-dwz-altlink
	fi
}

in_json_bomb() {
	local where d rc kib
	for where in member hit; do
		d="$HOME_A/rec-json-$where"
		as_attacker mkdir "$d"
		as_attacker cp "$SNAPTRACE_TOP/tests/cases/measured/perf.data.1" "$d/"
		python3 - "$where" "$SNAPTRACE_TOP/tests/cases/measured/record.json" >"$TMP/bomb.json" <<'PY' || return
import sys
doc, bomb = open(sys.argv[2]).read(), "[" + "0," * (3 << 20) + "0]"
if sys.argv[1] == "member":
    doc = doc.replace("{", '{"x": %s, ' % bomb, 1)
else:
    doc = doc.replace('"hits": [', '"hits": [{"x": %s}, ' % bomb, 1)
sys.stdout.write(doc)
PY
		as_attacker sh -c 'cat >"$1/record.json"' sh "$d" <"$TMP/bomb.json"
		kib=$(maxrss timeout -k 5 60 "$CONVERT" "$d" -o "$TMP/in-json-bomb.fxt" 3>&1 \
			2>"$TMP/in-json-bomb.err")
		rc=$?
		if [ "$kib" -ge $((160 * 1024)) ]; then
			fail in-json-bomb "$where: the converter held $((kib / 1024)) MiB"
			return
		fi
		refuses "$rc" in-json-bomb 1 "^snaptrace-convert: $d/record.json:[0-9]+: expected the JSON of snaptrace-record's report, found more than 1048576 values (outside \"hits\"|in hits\[0\])\$" \
			"$TMP/in-json-bomb.err" || return
	done
	ok in-json-bomb
}

in_json_string() {
	local d="$HOME_A/rec-json-string" rc
	as_attacker mkdir "$d"
	as_attacker cp "$SNAPTRACE_TOP/tests/cases/measured/perf.data.1" \
		"$SNAPTRACE_TOP/tests/cases/measured/measured-calls.txt" "$d/"
	python3 - "$SNAPTRACE_TOP/tests/cases/measured/record.json" >"$TMP/string.json" <<'PY' || return
import sys
doc = open(sys.argv[1]).read()
sys.stdout.write(doc.replace('"comm": "app"', '"comm": "%s"' % ("a" * (8 << 20)), 1))
PY
	as_attacker sh -c 'cat >"$1/record.json"' sh "$d" <"$TMP/string.json"
	timeout -k 5 60 "$CONVERT" "$d" -o "$TMP/in-json-string.fxt" 2>"$TMP/in-json-string.err"
	rc=$?
	refuses "$rc" in-json-string 1 "^snaptrace-convert: $d/record.json:4: expected the JSON of snaptrace-record's report, found a string longer than 1048576 bytes outside \"hits\"\$" \
		"$TMP/in-json-string.err" && ok in-json-string
}

tmp_submount() {
	local d="$TMP/submount" rc
	mkdir "$d"
	# anonymous executable memory: perf looks for /tmp/perf-PID.map
	spin_source submount_work 600 \
		'mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);' \
		>"$d/anonexec.c"
	if ! cc -O1 -fno-omit-frame-pointer -o "$d/anonexec" "$d/anonexec.c" 2>"$TMP/tmp-submount.err"; then
		fail tmp-submount "cannot build: $(first_lines "$TMP/tmp-submount.err")"
		return
	fi
	mkdir "$d/mnt"
	timeout -k 5 90 unshare --mount --propagation private sh -c '
		mount -t tmpfs -o size=8m snaptrace-test "$1/mnt" && cp "$1/anonexec" "$1/mnt/" &&
		"$2" -q -o "$1/rec" --trigger none --duration 0.3 -- "$1/mnt/anonexec" &&
		"$3" -q "$1/rec" -o "$1/trace.fxt"' sh "$d" "$RECORD" "$CONVERT" >"$TMP/tmp-submount.err" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail tmp-submount "exit $rc: $(first_lines "$TMP/tmp-submount.err")"
	elif ! "$CONVERT" --dump=slices "$d/trace.fxt" 2>&1 | grep -q ' submount_work$'; then
		fail tmp-submount "the program's function is not named: $("$CONVERT" --dump=slices "$d/trace.fxt" 2>&1 | grep -m1 -F "$d/mnt")"
	else
		ok tmp-submount
	fi
}

# Root's program with anonymous executable memory, in $TMP/manynames;
# 100,000 names of the attacker's in /tmp meanwhile (copies of this suite
# sharing the real /tmp take turns: the lock perfmap_tests takes); a perf
# wrapper lists perf's /tmp on fd 9, "--" after each listing.
# tmp_name_of PATH: the name in /tmp that PATH (under /tmp) goes through:
# the suite's own directory in a private /tmp, the runner's where the suites
# share the machine's /tmp (tests/run.sh could make no mount namespace).
tmp_name_of() {
	local rel=${1#/tmp/}
	echo "${rel%%/*}"
}

tmp_many_names() {
	local d="$TMP/manynames" wrap="$TMP/perf-list-tmp" log="$TMP/tmp-many-names.log" rc most
	local tmp_lock
	mkdir "$d"
	spin_source many_names_work 300 \
		'mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);' \
		>"$d/anonexec.c"
	if ! cc -O1 -fno-omit-frame-pointer -o "$d/anonexec" "$d/anonexec.c" 2>"$TMP/tmp-many-names.err" ||
		! timeout -k 5 60 "$RECORD" -q -o "$d/rec" --trigger none --duration 0.3 -- "$d/anonexec" \
		2>"$TMP/tmp-many-names.err"; then
		fail tmp-many-names "root's recording failed: $(first_lines "$TMP/tmp-many-names.err")"
		return
	fi
	cat >"$wrap" <<EOF
#!/bin/sh
{ ls -A /tmp; echo --; } >&9
exec perf "\$@"
EOF
	chmod 755 "$wrap"
	exec {tmp_lock}</tmp
	flock -w 600 "$tmp_lock"
	as_attacker_in_tmp sh -c 'cd /tmp && seq -f "many-names-%.0f" 1 100000 | xargs touch'
	timeout -k 5 60 "$CONVERT" -q --perf "$wrap" "$d/rec" -o "$d/trace.fxt" 2>"$TMP/tmp-many-names.err" \
		9>"$log"
	rc=$?
	find /tmp -maxdepth 1 -name 'many-names-*' -delete
	exec {tmp_lock}<&-
	most=$(awk '$0 == "--" { if (n > m) m = n; n = 0; next } { n++ } END { print m + 0 }' "$log")
	if [ "$rc" -ne 0 ]; then
		fail tmp-many-names "exit $rc: $(first_lines "$TMP/tmp-many-names.err")"
	elif ! "$CONVERT" --dump=slices "$d/trace.fxt" 2>&1 | grep -q ' many_names_work$'; then
		fail tmp-many-names "the program's function is not named: $(first_lines "$TMP/tmp-many-names.err")"
	elif ! grep -q -- '^--$' "$log"; then
		fail tmp-many-names "the perf wrapper did not run: $(first_lines "$TMP/tmp-many-names.err")"
	elif grep -q '^many-names-' "$log"; then
		fail tmp-many-names "perf's /tmp shows the attacker's names ($(grep -c '^many-names-' "$log"))"
	elif [ "$most" -gt 1024 ]; then
		fail tmp-many-names "perf's /tmp shows $most names, more than 1024"
	elif ! grep -qx "$(tmp_name_of "$TMP")" "$log"; then
		fail tmp-many-names "perf's /tmp lacks the program's directory: $(tr '\n' ' ' <"$log" | cut -c 1-200)"
	else
		ok tmp-many-names
	fi
}

# debuglink_cwd: see the header.
debuglink_cwd() {
	local libc rec="$TMP/dl-rec" dump="$TMP/debuglink-cwd.dump" link bid dbg fake=ATTACKER_NAMED_THIS
	local real=__libc_start_call_main
	libc=$(ldd /bin/true | awk '$1 ~ /^libc[.]so/ { print $3 }')
	link=$(readelf --string-dump=.gnu_debuglink "$libc" 2>/dev/null | awk '/\]/ { print $3 }')
	bid=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
	dbg="/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
	if [ -z "$link" ] || [ ! -r "$dbg" ] || ! nm "$dbg" 2>/dev/null | grep -q " $real\$"; then
		fail debuglink-cwd "no debug file of $libc with $real (libc6-dbg: scripts/install-deps.sh)"
		return
	fi
	spin_source debuglink_work 300 >"$TMP/dl.c"
	if ! cc -O1 -fno-omit-frame-pointer -o "$TMP/dl-prog" "$TMP/dl.c" 2>"$TMP/debuglink-cwd.err" ||
		! timeout -k 5 60 "$RECORD" -q -o "$rec" --trigger none -- "$TMP/dl-prog" 2>"$TMP/debuglink-cwd.err"; then
		fail debuglink-cwd "root's recording failed: $(first_lines "$TMP/debuglink-cwd.err")"
		return
	fi
	as_attacker objcopy --redefine-sym "$real=$fake" "$dbg" "$SHARED/$link"
	(cd "$SHARED" && timeout -k 5 60 perf --buildid-dir /dev/null script -f \
		-i "$(ls "$rec"/perf.data* | head -n 1)") >"$TMP/debuglink-cwd.perf" 2>&1
	if ! grep -q "$fake" "$TMP/debuglink-cwd.perf"; then
		fail debuglink-cwd "plain perf script in $SHARED did not take the attacker's file: $(grep -c "$real" "$TMP/debuglink-cwd.perf") frames of $real"
	elif ! (cd "$SHARED" && timeout -k 5 60 "$CONVERT" -q "$rec" -o "$TMP/debuglink-cwd.fxt") \
		2>"$TMP/debuglink-cwd.err"; then
		fail debuglink-cwd "the conversion failed: $(first_lines "$TMP/debuglink-cwd.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/debuglink-cwd.fxt" >"$dump" 2>&1; then
		fail debuglink-cwd "cannot read the trace: $(first_lines "$dump")"
	elif grep -q "$fake" "$dump"; then
		fail debuglink-cwd "root's trace names libc's frames as the attacker chose ($(grep -c "$fake" "$dump") slices)"
	elif ! grep -q " $real\$" "$dump"; then
		fail debuglink-cwd "no slice of $real: $(grep -c . "$dump") slices"
	else
		ok debuglink-cwd
	fi
	rm -f "$SHARED/$link"
}

# tmp_vdso_debug: see the header. The watcher, as the attacker, logs
# "planted NAME" and "opened NAME" (inotify IN_OPEN of /tmp/.debug's files).
tmp_vdso_debug() {
	local d="$TMP/vdso" log="$TMP/tmp-vdso-debug.log" watcher rc tmp_lock
	mkdir "$d"
	cat >"$d/watch.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
int main(void)
{
	char buf[8192] __attribute__((aligned(8))), path[512];
	int fd = inotify_init();
	if (fd < 0 || inotify_add_watch(fd, "/tmp", IN_CREATE) < 0 ||
	    inotify_add_watch(fd, "/tmp/.debug", IN_OPEN) < 0)
		return 1;
	printf("watching\n");
	fflush(stdout);
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		for (char *p = buf; r > 0 && p < buf + r;) {
			struct inotify_event *e = (void *)p;
			if (e->len && (e->mask & IN_CREATE) && !strncmp(e->name, "perf-vdso.so-", 13)) {
				snprintf(path, sizeof(path), "/tmp/.debug/%s", e->name);
				mknod(path, S_IFREG | 0644, 0);	/* made, not opened */
				printf("planted %s\n", e->name);
			} else if (e->mask & IN_OPEN) {
				printf("opened %s\n", e->len ? e->name : ".");
			}
			fflush(stdout);
			p += sizeof(*e) + e->len;
		}
	}
}
EOF
	spin_source vdso_work 300 >"$d/prog.c"
	if ! cc -O1 -o "$d/watch" "$d/watch.c" 2>"$TMP/tmp-vdso-debug.err" ||
		! cc -O1 -fno-omit-frame-pointer -o "$d/prog" "$d/prog.c" 2>"$TMP/tmp-vdso-debug.err"; then
		fail tmp-vdso-debug "cannot build: $(first_lines "$TMP/tmp-vdso-debug.err")"
		return
	fi
	chmod 755 "$d" "$d/watch"
	if ! timeout -k 5 60 "$RECORD" -q -o "$d/rec" --trigger none -- "$d/prog" 2>"$TMP/tmp-vdso-debug.err"; then
		fail tmp-vdso-debug "root's recording failed: $(first_lines "$TMP/tmp-vdso-debug.err")"
		return
	fi
	exec {tmp_lock}</tmp
	flock -w 600 "$tmp_lock"
	if ! as_attacker_in_tmp mkdir /tmp/.debug 2>"$TMP/tmp-vdso-debug.err"; then
		fail tmp-vdso-debug "the attacker cannot make /tmp/.debug: $(first_lines "$TMP/tmp-vdso-debug.err")"
		exec {tmp_lock}<&-
		return
	fi
	"${ATTACKER[@]}" "$d/watch" >"$log" 2>&1 &
	watcher=$!
	for _ in $(seq 500); do grep -q "^watching$" "$log" 2>/dev/null && break; sleep 0.01; done
	timeout -k 5 60 "$CONVERT" -q "$d/rec" -o "$d/trace.fxt" 2>"$TMP/tmp-vdso-debug.err"
	rc=$?
	sleep 0.2
	end_bg "$watcher"
	rm -rf /tmp/.debug
	exec {tmp_lock}<&-
	if [ "$rc" -ne 0 ]; then
		fail tmp-vdso-debug "exit $rc: $(first_lines "$TMP/tmp-vdso-debug.err")"
	elif ! grep -q '^watching$' "$log"; then
		fail tmp-vdso-debug "the watcher did not start: $(first_lines "$log")"
	elif grep -q '^opened' "$log"; then
		fail tmp-vdso-debug "root's perf opened the attacker's /tmp/.debug: $(tr '\n' ' ' <"$log" | cut -c 1-200)"
	elif grep -q '^planted' "$log"; then
		fail tmp-vdso-debug "perf's copy of the vdso appeared in the real /tmp: $(tr '\n' ' ' <"$log" | cut -c 1-200)"
	elif ! "$CONVERT" --dump=slices "$d/trace.fxt" 2>&1 | grep -q ' vdso_work$'; then
		fail tmp-vdso-debug "the program's function is not named"
	else
		ok tmp-vdso-debug
	fi
}

# tmp_debug_dir: see the header.
tmp_debug_dir() {
	local prog="/tmp/rootsafe-dbg-$$" rec="$TMP/dbg-rec" dump="$TMP/tmp-debug-dir.dump" tmp_lock
	local real=debugdir_work fake=ATTACKER_NAMED_THIS
	spin_source "$real" 300 >"$TMP/dbg.c"
	if ! cc -O1 -g -fno-omit-frame-pointer -o "$prog" "$TMP/dbg.c" 2>"$TMP/tmp-debug-dir.err" ||
		! objcopy --only-keep-debug "$prog" "$prog.debug" 2>>"$TMP/tmp-debug-dir.err" ||
		! objcopy --strip-debug --add-gnu-debuglink="$prog.debug" "$prog" 2>>"$TMP/tmp-debug-dir.err"; then
		fail tmp-debug-dir "cannot build the program: $(first_lines "$TMP/tmp-debug-dir.err")"
		rm -f "$prog" "$prog.debug"
		return
	fi
	rm -f "$prog.debug"
	chmod 755 "$prog"
	if ! timeout -k 5 60 "$RECORD" -q -o "$rec" --trigger none -- "$prog" 2>"$TMP/tmp-debug-dir.err"; then
		fail tmp-debug-dir "root's recording failed: $(first_lines "$TMP/tmp-debug-dir.err")"
		rm -f "$prog"
		return
	fi
	exec {tmp_lock}</tmp
	flock -w 600 "$tmp_lock"
	mkdir -m 777 /tmp/.debug && chmod 777 /tmp/.debug
	as_attacker objcopy --only-keep-debug --redefine-sym "$real=$fake" "$prog" \
		"/tmp/.debug/${prog##*/}.debug" 2>"$TMP/tmp-debug-dir.err"
	(cd / && timeout -k 5 60 perf --buildid-dir /dev/null script -f \
		-i "$(ls "$rec"/perf.data* | head -n 1)") >"$TMP/tmp-debug-dir.perf" 2>&1
	timeout -k 5 60 "$CONVERT" -q "$rec" -o "$TMP/tmp-debug-dir.fxt" 2>"$TMP/tmp-debug-dir.err"
	local rc=$?
	rm -rf /tmp/.debug "$prog"
	exec {tmp_lock}<&-
	if ! grep -q "$fake" "$TMP/tmp-debug-dir.perf"; then
		fail tmp-debug-dir "plain perf script did not take the attacker's file: $(grep -c "$real" "$TMP/tmp-debug-dir.perf") frames of $real"
	elif [ "$rc" -ne 0 ]; then
		fail tmp-debug-dir "exit $rc: $(first_lines "$TMP/tmp-debug-dir.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/tmp-debug-dir.fxt" >"$dump" 2>&1; then
		fail tmp-debug-dir "cannot read the trace: $(first_lines "$dump")"
	elif grep -q "$fake" "$dump"; then
		fail tmp-debug-dir "root's trace names the program's frames as the attacker chose ($(grep -c "$fake" "$dump") slices)"
	elif ! grep -q " $real\$" "$dump"; then
		fail tmp-debug-dir "no slice of $real: $(grep -c . "$dump") slices"
	else
		ok tmp-debug-dir
	fi
}

# kernel_oracle: see the header.
kernel_oracle() {
	local d="$TMP/kern" data mine="$HOME_A/kern.data" n
	mkdir "$d"
	# its time in the kernel (reads of /dev/zero), so root's recording has
	# kernel frames whatever the load: a user-space spin had none in 1 run
	# of about 20 beside other suites (a sample lands in the kernel by chance)
	cat >"$d/prog.c" <<'EOF'
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
static char buf[1 << 16];
__attribute__((noinline)) void kern_work(int fd)
{
	for (int i = 0; i < 16; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			return;
}
int main(void)
{
	struct timespec t0, t;
	int fd = open("/dev/zero", O_RDONLY);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		kern_work(fd);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
	return 0;
}
EOF
	if ! cc -O1 -fno-omit-frame-pointer -o "$d/prog" "$d/prog.c" 2>"$TMP/kernel-oracle.err" ||
		! timeout -k 5 60 "$RECORD" -q -o "$d/rec" --trigger none -- "$d/prog" 2>"$TMP/kernel-oracle.err"; then
		fail kernel-oracle "root's recording failed: $(first_lines "$TMP/kernel-oracle.err")"
		return
	fi
	data=$(ls "$d"/rec/perf.data* | head -n 1)
	chmod 755 "$d" "$d/rec"
	chmod 644 "$data"
	as_attacker cp "$data" "$mine"
	timeout -k 5 60 "$CONVERT" -q "$data" -o "$d/root.fxt" 2>"$TMP/kernel-oracle.err"
	n=$("$CONVERT" --dump "$d/root.fxt" 2>&1 | grep -ac 'kernel_function:string=')
	if [ "$n" -eq 0 ]; then
		fail kernel-oracle "root's own recording names no kernel function: $(first_lines "$TMP/kernel-oracle.err")"
	elif ! timeout -k 5 60 "$CONVERT" -q "$mine" -o "$d/theirs.fxt" 2>"$TMP/kernel-oracle.err"; then
		fail kernel-oracle "the conversion failed: $(first_lines "$TMP/kernel-oracle.err")"
	elif "$CONVERT" --dump "$d/theirs.fxt" 2>&1 | grep -aq 'kernel_function:string='; then
		fail kernel-oracle "the attacker's perf.data is named from root's /proc/kallsyms: $("$CONVERT" --dump "$d/theirs.fxt" 2>&1 | grep -ac 'kernel_function:string=') kernel functions"
	elif [ "$(wc -l <"$TMP/kernel-oracle.err")" -ne 1 ] ||
		! grep -q "^snaptrace-convert: warning: $mine: its kernel frames stay unnamed: a recording of uid $AUID's" "$TMP/kernel-oracle.err"; then
		fail kernel-oracle "expected one warning naming the file and the owner: $(first_lines "$TMP/kernel-oracle.err")"
	elif ! "$CONVERT" --dump=slices "$d/theirs.fxt" 2>&1 | grep -q ' kern_work$'; then
		fail kernel-oracle "the program's function is not named"
	else
		ok kernel-oracle
	fi
}

# comm_newline: see the header.
comm_newline() {
	local d="$TMP/nlcomm" pid data n rc procs
	mkdir -m 755 "$d"
	cat >"$d/nm.c" <<'EOF'
#define _GNU_SOURCE
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
volatile unsigned long s;
int main(void)
{
	time_t end = time(0) + 30;	/* the test ends it sooner */

	prctl(PR_SET_NAME, "\n1/1 1.0: 1 x:");
	while (time(0) < end)
		for (int i = 0; i < 200000; i++)
			s += i;
	return 0;
}
EOF
	cat >"$d/prog.c" <<'EOF'
#include <unistd.h>
volatile unsigned long s;
__attribute__((noinline)) void root_work(void)
{
	for (int i = 0; i < 100000; i++)
		s += i;
}
int main(void)
{
	for (int i = 0; i < 1000; i++) {
		root_work();
		usleep(200);
	}
	return 0;
}
EOF
	if ! cc -O1 -o "$d/nm" "$d/nm.c" 2>"$TMP/comm-newline.err" ||
		! cc -O1 -fno-omit-frame-pointer -o "$d/prog" "$d/prog.c" 2>"$TMP/comm-newline.err"; then
		fail comm-newline "cc: $(first_lines "$TMP/comm-newline.err")"
		return
	fi
	as_attacker taskset -c 0 "$d/nm" &
	pid=$!
	timeout -k 5 60 "$RECORD" -q -o "$d/rec" --trigger none -- taskset -c 0 "$d/prog" \
		2>"$TMP/comm-newline.err"
	rc=$?
	end_bg "$pid"
	data=$(ls "$d"/rec/perf.data* 2>/dev/null | head -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$data" ]; then
		fail comm-newline "root's recording failed: $(first_lines "$TMP/comm-newline.err")"
		return
	fi
	# the attack took place: perf script cut lines of root's at her name
	n=$(timeout -k 5 60 perf script -f --ns -i "$data" 2>/dev/null | grep -ac '^1/1 1\.0: 1 x: next_pid=')
	timeout -k 5 60 "$CONVERT" "$d/rec" -o "$d/root.fxt" 2>"$TMP/comm-newline.err"
	rc=$?
	procs=$("$CONVERT" --dump=records "$d/root.fxt" 2>/dev/null |
		sed -n 's/.* kobj process koid=\([0-9]*\) .*/\1/p' | sort -u | tr '\n' ' ')
	if [ "$n" -eq 0 ]; then
		fail comm-newline "perf script cut no line of root's at the attacker's name (did her process run on CPU 0?)"
	elif [ "$rc" -ne 0 ]; then
		fail comm-newline "exit $rc: $(first_lines "$TMP/comm-newline.err")"
	elif [ "$(echo $procs | wc -w)" -ne 1 ]; then
		fail comm-newline "root's trace of its own program holds processes $procs($n lines cut): $(grep -a 'threads,' "$TMP/comm-newline.err")"
	elif "$CONVERT" --dump=records "$d/root.fxt" 2>/dev/null | grep -aq 'name="x"'; then
		fail comm-newline "root's trace holds the attacker's event \"x\" ($n lines cut)"
	elif ! "$CONVERT" --dump=slices "$d/root.fxt" 2>&1 | grep -q ' root_work$'; then
		fail comm-newline "no slice of root_work"
	else
		ok comm-newline
	fi
}

# theirs_recording: root records a program only root may read (in a 0700
# directory) into $TMP/theirs/rec; THEIRS_MINE is the attacker's copy of its
# perf.data (hers: she could have written every byte of it). Returns 1 after
# a FAIL of each theirs-* test.
THEIRS_MINE="$HOME_A/theirs.data"
theirs_recording() {
	local d="$TMP/theirs" priv="$ROOTONLY/theirs-priv" data t
	mkdir -p "$d" "$priv"
	chmod 700 "$priv"
	spin_source root_only_work 300 >"$d/prog.c"
	if ! cc -O1 -g -fno-omit-frame-pointer -o "$priv/prog" "$d/prog.c" 2>"$TMP/theirs.err" ||
		! timeout -k 5 60 "$RECORD" -q -o "$d/rec" --trigger none -- "$priv/prog" 2>"$TMP/theirs.err"; then
		for t in theirs-dso-rootonly theirs-attr-bits theirs-perf-uid theirs-perf-env theirs-perf-fds theirs-perf-stopped theirs-perf-ptrace theirs-perf-session theirs-srcline-text theirs-measured-caller theirs-buildid-verdict; do
			fail "$t" "root's recording failed: $(first_lines "$TMP/theirs.err")"
		done
		return 1
	fi
	data=$(ls "$d"/rec/perf.data* | head -n 1)
	chmod 755 "$d" "$d/rec"
	chmod 644 "$data"
	as_attacker cp "$data" "$THEIRS_MINE"
	chmod 700 "$d/rec"
}

# theirs_dso_rootonly: see the header.
theirs_dso_rootonly() {
	local d="$TMP/theirs" n
	timeout -k 5 60 "$CONVERT" -q "$d/rec" -o "$d/root.fxt" 2>"$TMP/theirs-dso-rootonly.err"
	n=$("$CONVERT" --dump "$d/root.fxt" 2>&1 | grep -a 'name="root_only_work"' | grep -ac "file:string=\"$d/prog.c\"")
	if [ "$n" -eq 0 ]; then
		fail theirs-dso-rootonly "root's own recording names no root_only_work with its line: $(first_lines "$TMP/theirs-dso-rootonly.err")"
	elif ! timeout -k 5 60 "$CONVERT" -q "$THEIRS_MINE" -o "$d/theirs.fxt" 2>"$TMP/theirs-dso-rootonly.err"; then
		fail theirs-dso-rootonly "the conversion failed: $(first_lines "$TMP/theirs-dso-rootonly.err")"
	elif "$CONVERT" --dump "$d/theirs.fxt" 2>&1 | grep -aq "root_only_work\|$d/prog.c"; then
		fail theirs-dso-rootonly "the root-only binary named her frames: $("$CONVERT" --dump "$d/theirs.fxt" 2>&1 | grep -a -m1 "root_only_work\|$d/prog.c" | cut -c 1-200)"
	elif ! "$CONVERT" --dump=slices "$d/theirs.fxt" 2>&1 | grep -q "unknown @ 0x[0-9a-f]* ($ROOTONLY/theirs-priv/prog)"; then
		fail theirs-dso-rootonly "no unnamed frame of the binary in the trace: $("$CONVERT" --dump=slices "$d/theirs.fxt" 2>&1 | head -n 3 | tr '\n' '|')"
	else
		ok theirs-dso-rootonly
	fi
}

# theirs_srcline_text: see the header.
theirs_srcline_text() {
	local d="$TMP/theirs" prog="$ROOTONLY/theirs-priv/prog" txt="$HOME_A/theirs-lines.txt"
	local own="$TMP/theirs-lines.txt" a m
	a=$(nm "$prog" | awk '$3 == "root_only_work" { print $1 }')
	m=$(nm "$prog" | awk '$3 == "main" { print $1 }')
	{ srcline_text_line main 16 root_only_work 0 5.000000100 call "$m" "$a" "$prog"
	  srcline_text_line root_only_work 16 main 21 5.000000300 return "$a" "$m" "$prog"; } |
		as_attacker tee "$txt" >/dev/null
	cp "$txt" "$own"
	timeout -k 5 60 "$CONVERT" -q "$own" -o "$d/lines-root.fxt" 2>"$TMP/theirs-srcline-text.err"
	if ! "$CONVERT" --dump "$d/lines-root.fxt" 2>&1 | grep -a 'name="root_only_work"' | grep -aq "file:string=\"$d/prog.c\""; then
		fail theirs-srcline-text "root's own text gets no line of root_only_work: $(first_lines "$TMP/theirs-srcline-text.err")"
	elif ! timeout -k 5 60 "$CONVERT" -q "$txt" -o "$d/lines-theirs.fxt" 2>"$TMP/theirs-srcline-text.err"; then
		fail theirs-srcline-text "the conversion failed: $(first_lines "$TMP/theirs-srcline-text.err")"
	elif "$CONVERT" --dump "$d/lines-theirs.fxt" 2>&1 | grep -aq "$d/prog.c"; then
		fail theirs-srcline-text "root's DWARF gave her text a source line: $("$CONVERT" --dump "$d/lines-theirs.fxt" 2>&1 | grep -a -m1 "$d/prog.c" | cut -c 1-200)"
	elif ! "$CONVERT" --dump=slices "$d/lines-theirs.fxt" 2>&1 | grep -Eq ' root_only_work( |$)'; then
		fail theirs-srcline-text "no slice of root_only_work: $("$CONVERT" --dump=slices "$d/lines-theirs.fxt" 2>&1 | head -n 3 | tr '\n' '|')"
	else
		ok theirs-srcline-text
	fi
}

# theirs_measured_caller: see the header.
theirs_measured_caller() {
	local d="$TMP/theirs" prog="$ROOTONLY/theirs-priv/prog" her="$HOME_A/mc" own="$TMP/theirs-mc"
	local a m at libc=/usr/lib/x86_64-linux-gnu/libc.so.6
	a=$((16#$(nm "$prog" | awk '$3 == "root_only_work" { print $1 }')))
	m=$((16#$(nm "$prog" | awk '$3 == "main" { print $1 }')))
	as_attacker mkdir -p "$her"
	sed -e "s|\"/opt/app\"|\"$prog\"|" -e "s|\"vaddr\": 4198992|\"vaddr\": $m|" \
		-e 's|"symbol": "step", "name": "step"|"symbol": "main", "name": "main"|' \
		"$SNAPTRACE_TOP/tests/cases/measured-after-sleep/record.json" | as_attacker tee "$her/record.json" >/dev/null
	printf '%s\n' '# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]' \
		"0 400 400 30000050000 30000090000 $(printf %+d $((a + 1 - m)))" |
		as_attacker tee "$her/measured-calls.txt" >/dev/null
	for at in 30.000000000 30.000100000; do
		printf '%s\n' "             app   400/400      $at:     100000 cpu-clock:u: " \
			"	7f0000046610 strtoll+0x10 ($libc)" "	7f00000271ca __libc_start_call_main+0x7a ($libc)" ''
	done | as_attacker tee "$her/perf.data.1" >/dev/null
	rm -rf "$own"
	cp -r "$her" "$own"
	chown -R root:root "$own"
	timeout -k 5 60 "$CONVERT" -q "$own" -o "$d/mc-root.fxt" 2>"$TMP/theirs-measured-caller.err"
	if ! "$CONVERT" --dump=slices "$d/mc-root.fxt" 2>&1 | grep -q ' root_only_work$'; then
		fail theirs-measured-caller "root's own copy names no caller root_only_work: $(first_lines "$TMP/theirs-measured-caller.err")"
	elif ! timeout -k 5 60 "$CONVERT" -q "$her" -o "$d/mc-theirs.fxt" 2>"$TMP/theirs-measured-caller.err"; then
		fail theirs-measured-caller "the conversion failed: $(first_lines "$TMP/theirs-measured-caller.err")"
	elif "$CONVERT" --dump "$d/mc-theirs.fxt" 2>&1 | grep -aq 'root_only_work'; then
		fail theirs-measured-caller "root's root-only binary named her call's caller: $("$CONVERT" --dump=slices "$d/mc-theirs.fxt" 2>&1 | grep -a -m1 root_only_work)"
	elif ! "$CONVERT" --dump=slices "$d/mc-theirs.fxt" 2>&1 | grep -q ' main$'; then
		fail theirs-measured-caller "no measured slice of main: $("$CONVERT" --dump=slices "$d/mc-theirs.fxt" 2>&1 | head -n 3 | tr '\n' '|')"
	else
		ok theirs-measured-caller
	fi
}

# srcline_text_line FROM FROMOFF TO TOOFF TIME KIND FROMSYM TOSYM BIN: a perf
# script branch line of pid 100 from FROM+FROMOFF to TO+TOOFF in BIN, whose
# symbols FROM and TO are at FROMSYM and TOSYM (hex, nm's) in it.
srcline_text_line() {
	printf '%16s %5d/%-5d %18s: %10d  branches:u:   %-28s %x %s+0x%x (%s) => %16x %s+0x%x (%s)\n' \
		app 100 100 "$5" 1 "$6" $((0x400000 + 0x$7 + $2)) "$1" "$2" "$9" \
		$((0x400000 + 0x$8 + $4)) "$3" "$4" "$9"
}

# theirs_buildid_verdict: see the header.
theirs_buildid_verdict() {
	local prog="$ROOTONLY/theirs-priv/prog" bad="$HOME_A/theirs-bid.data" id
	id=$(readelf -n "$prog" | awk '/Build ID/ { print $3 }')
	# the bytes she would write (python3 may be root's own: made here, copied by her)
	if ! python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
raw = bytes.fromhex(sys.argv[3])
if raw not in b:
    sys.exit(1)
open(sys.argv[2], "wb").write(b.replace(raw, bytes([raw[0] ^ 0xff]) + raw[1:]))
' "$THEIRS_MINE" "$TMP/theirs-bid.data" "$id"; then
		fail theirs-buildid-verdict "the perf.data holds no build id $id of $prog"
		return
	fi
	chmod 644 "$TMP/theirs-bid.data"
	as_attacker cp "$TMP/theirs-bid.data" "$bad"
	if ! timeout -k 5 60 "$CONVERT" -q "$bad" -o "$TMP/theirs-bid.fxt" 2>"$TMP/theirs-buildid-verdict.err"; then
		fail theirs-buildid-verdict "the conversion failed: $(first_lines "$TMP/theirs-buildid-verdict.err")"
	elif grep -q "$id" "$TMP/theirs-buildid-verdict.err"; then
		fail theirs-buildid-verdict "a warning told her the root-only binary's build id: $(grep -m1 "$id" "$TMP/theirs-buildid-verdict.err" | cut -c 1-240)"
	elif ! grep -q "^snaptrace-convert: warning: $prog: gone (or not one the recording's owner may open) since the recording" "$TMP/theirs-buildid-verdict.err"; then
		fail theirs-buildid-verdict "expected the binary said gone or not hers to open: $(first_lines "$TMP/theirs-buildid-verdict.err")"
	else
		ok theirs-buildid-verdict
	fi
}

# theirs_attr_bits: see the header.
theirs_attr_bits() {
	local bad="$HOME_A/theirs-bst.data" rc
	# the bytes she would write (python3 may be root's own: made here, copied by her)
	python3 - "$THEIRS_MINE" "$TMP/theirs-bst.data" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
attrs = struct.unpack_from('<Q', b, 24)[0]
struct.pack_into('<I', b, attrs + 72, 0xffffffff)
open(sys.argv[2], 'wb').write(b)
EOF
	chmod 644 "$TMP/theirs-bst.data"
	as_attacker cp "$TMP/theirs-bst.data" "$bad"
	timeout -k 5 60 "$CONVERT" -q "$bad" -o "$TMP/theirs-attr-bits.fxt" 2>"$TMP/theirs-attr-bits.err"
	rc=$?
	if refuses "$rc" theirs-attr-bits 1 "^snaptrace-convert: $bad: a damaged perf.data: its attribute 0's branch_sample_type holds bits perf does not define \(0xfff80000 of 0xffffffff\)$" \
		"$TMP/theirs-attr-bits.err"; then
		verdict theirs-attr-bits "$([ -e "$TMP/theirs-attr-bits.fxt" ] && echo "a trace was written")"
	fi
}

# theirs_perf_uid: see the header.
theirs_perf_uid() {
	local wrap="$TMP/theirs-perf" log="$TMP/theirs-perf-uid.log"
	: >"$log"
	chmod 666 "$log"
	cat >"$wrap" <<EOF
#!/bin/sh
case " \$* " in *" script "*) echo "\$(id -u) \$(id -G) \$(grep CapEff /proc/self/status)" >>"$log" ;; esac
exec perf "\$@"
EOF
	chmod 755 "$wrap"
	if ! timeout -k 5 60 "$CONVERT" -q --perf "$wrap" "$THEIRS_MINE" -o "$TMP/theirs-perf-uid.fxt" \
		2>"$TMP/theirs-perf-uid.err"; then
		fail theirs-perf-uid "the conversion failed: $(first_lines "$TMP/theirs-perf-uid.err")"
	elif [ "$(sort -u "$log" | tr '\t' ' ')" != "$AUID $AGID CapEff: 0000000000000000" ]; then
		fail theirs-perf-uid "perf script ran as: $(tr '\n\t' '| ' <"$log")"
	else
		ok theirs-perf-uid
	fi
}

# theirs_perf_session: see the header.
theirs_perf_session() {
	local wrap="$TMP/theirs-session" log="$TMP/theirs-perf-session.log" run="$TMP/theirs-session.sh"
	local ring='import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.syscall(250, 0, -3, 0))'
	local root_ring her_ring
	: >"$log"
	chmod 666 "$log"
	cat >"$wrap" <<EOF
#!/bin/sh
case " \$* " in *" script "*)
	if (: <>/dev/tty) 2>/dev/null; then echo "tty opened as \$(id -u)" >>"$log"; fi
	echo "ring \$(python3 -c '$ring')" >>"$log" ;;
esac
exec perf "\$@"
EOF
	chmod 755 "$wrap"
	# root, at a terminal, in a session keyring of its own (as pam_keyinit
	# gives a login), converts her copy
	cat >"$run" <<EOF
exec python3 -c 'import ctypes, os, sys; l = ctypes.CDLL(None, use_errno=True)
sys.exit(1) if l.syscall(250, 1, b"snaptrace-root-ring") < 0 else None
os.close(os.open("/dev/tty", os.O_RDWR))
print("root", l.syscall(250, 0, -3, 0), flush=True)
os.execvp(sys.argv[1], sys.argv[1:])' timeout -k 5 60 "$CONVERT" -q --perf "$wrap" "$THEIRS_MINE" \\
	-o "$TMP/theirs-perf-session.fxt" 2>"$TMP/theirs-perf-session.err" >>"$log"
EOF
	script -qec "sh $run" /dev/null >/dev/null 2>&1 </dev/null
	root_ring=$(awk '$1 == "root" { print $2 }' "$log")
	her_ring=$(awk '$1 == "ring" { print $2 }' "$log" | sort -u)
	if [ -z "$root_ring" ]; then
		fail theirs-perf-session "root's side found no terminal or keyring: $(tr '\n' '|' <"$log") $(first_lines "$TMP/theirs-perf-session.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/theirs-perf-session.fxt" >/dev/null 2>&1; then
		fail theirs-perf-session "the conversion failed: $(first_lines "$TMP/theirs-perf-session.err")"
	elif grep -q '^tty opened' "$log"; then
		fail theirs-perf-session "her perf opened root's terminal: $(grep -m1 '^tty opened' "$log")"
	elif [ -z "$her_ring" ] || [ "$her_ring" = "$root_ring" ]; then
		fail theirs-perf-session "her perf's session keyring is root's ($root_ring): '$her_ring'"
	else
		ok theirs-perf-session
	fi
}

# theirs_perf_env: see the header.
theirs_perf_env() {
	local wrap="$TMP/theirs-env" log="$HOME_A/theirs-perf-env.log" bad home
	home=$(getent passwd "$AUID" | cut -d: -f6)
	# the wrapper is perf's process (what it got is what perf gets): she reads it
	cat >"$wrap" <<EOF
#!/bin/sh
case " \$* " in *" script "*)
	\$([ "\$(id -u)" = 0 ] && echo "${ATTACKER[*]}") sh -c 'tr "\\\\0" "\\\\n" </proc/\$1/environ' sh \$\$ >>"$log" ;;
esac
exec perf "\$@"
EOF
	chmod 755 "$wrap"
	as_attacker touch "$log"
	if ! SNAPTRACE_ROOT_SECRET=root-secret-$RANDOM HOME=$ROOTONLY timeout -k 5 60 "$CONVERT" -q --perf "$wrap" \
		"$THEIRS_MINE" -o "$TMP/theirs-perf-env.fxt" 2>"$TMP/theirs-perf-env.err"; then
		fail theirs-perf-env "the conversion failed: $(first_lines "$TMP/theirs-perf-env.err")"
		return
	fi
	bad=$(grep -v "^\(LANG\|LANGUAGE\|LC_[A-Z_]*\)=\|^PAGER=cat$\|^PATH=$(getconf PATH)$\|^HOME=$home$" "$log")
	if ! grep -q '^PAGER=cat$' "$log"; then
		fail theirs-perf-env "her reading of perf's environment found nothing: $(first_lines "$log")"
	elif [ -n "$bad" ]; then
		fail theirs-perf-env "perf, her process, holds root's: $(printf '%s' "$bad" | tr '\n' ' ' | cut -c 1-300)"
	else
		ok theirs-perf-env
	fi
}

# theirs_perf_fds: see the header.
theirs_perf_fds() {
	local wrap="$TMP/theirs-fds" log="$HOME_A/theirs-perf-fds.log" bad
	# the wrapper is perf's process: what it may pass on is what perf gets
	cat >"$wrap" <<EOF
#!/usr/bin/python3
import os, sys
if "script" in sys.argv[1:]:
    with open("$log", "a") as log:
        for f in sorted(os.listdir("/proc/self/fd"), key=int):
            try:
                if os.get_inheritable(int(f)):
                    log.write("fd %s %s\\n" % (f, os.readlink("/proc/self/fd/" + f)))
            except OSError:
                pass
        log.write("args %s\\n" % " ".join(sys.argv[1:]))
os.execvp("perf", ["perf"] + sys.argv[1:])
EOF
	chmod 755 "$wrap"
	as_attacker touch "$log"
	# root's caller hands the converter a root-only file (fd 7)
	if ! timeout -k 5 60 "$CONVERT" -q --perf "$wrap" "$THEIRS_MINE" -o "$TMP/theirs-perf-fds.fxt" \
		2>"$TMP/theirs-perf-fds.err" 7<"$SECRET"; then
		fail theirs-perf-fds "the conversion failed: $(first_lines "$TMP/theirs-perf-fds.err")"
		return
	fi
	# each fd past 2 named by the arguments; no file at two fds
	bad=$(awk '$1 == "args" { args = $0 } $1 == "fd" { fd[$2] = $3; seen[$3]++ }
		END { for (n in fd)
			if (n > 2 && index(args, "/proc/self/fd/" n) == 0) print "fd " n " " fd[n] " (not named)"
			else if (seen[fd[n]] > 1 && fd[n] != "/dev/null") print "fd " n " " fd[n] " (twice)"
		}' "$log")
	if ! grep -q '^args .*script ' "$log"; then
		fail theirs-perf-fds "the wrapper noted no perf script: $(first_lines "$log")"
	elif grep -q "$SECRET" "$log" || [ -n "$bad" ]; then
		fail theirs-perf-fds "perf, her process, holds: $(printf '%s' "$bad" | tr '\n' ';' | cut -c 1-300) $(grep -o "$SECRET" "$log" | head -n 1)"
	else
		ok theirs-perf-fds
	fi
}

# theirs_perf_stopped: see the header.
theirs_perf_stopped() {
	local wrap="$TMP/theirs-stop" pidf="$HOME_A/theirs-stop.pid" sent="$HOME_A/theirs-stop.sent"
	local err="$TMP/theirs-perf-stopped.err" out="$TMP/theirs-perf-stopped.fxt" bg rc pid i
	# perf script's process (hers) notes its pid and waits for her SIGSTOP
	cat >"$wrap" <<EOF
#!/bin/sh
case " \$* " in *" script "*)
	echo \$\$ >"$pidf"
	while [ ! -e "$sent" ]; do sleep 0.02; done ;;
esac
exec perf "\$@"
EOF
	chmod 755 "$wrap"
	timeout -k 5 30 "$CONVERT" -q --perf "$wrap" "$THEIRS_MINE" -o "$out" 2>"$err" &
	bg=$!
	for i in $(seq 100); do
		[ -s "$pidf" ] && break
		sleep 0.1
	done
	pid=$(cat "$pidf" 2>/dev/null)
	[ -n "$pid" ] && as_attacker kill -STOP "$pid"
	as_attacker touch "$sent"
	wait "$bg"
	rc=$?
	if [ -z "$pid" ]; then
		fail theirs-perf-stopped "perf script never started: $(first_lines "$err")"
	elif blocked "$rc"; then
		fail theirs-perf-stopped "the conversion waited on the stopped perf script (pid $pid) until killed"
	elif grep -v '^snaptrace-convert: warning: ' "$err" >"$err.error" &&
		refuses "$rc" theirs-perf-stopped 1 "^snaptrace-convert: $THEIRS_MINE: perf script \(pid $pid\) stopped for [0-9]+ s \(a stop signal or a debugger; it runs as uid $AUID, who may stop it\): given up$" "$err.error"; then
		verdict theirs-perf-stopped "$([ -e "$out" ] && echo "a trace was written")$(kill -0 "$pid" 2>/dev/null && echo "the stopped perf (pid $pid) is left")"
	fi
	if kill -0 "$pid" 2>/dev/null; then	# hers, stopped by the test's own attacker
		kill -KILL "$pid" 2>/dev/null
	fi
}

# theirs_perf_ptrace: see the header.
theirs_perf_ptrace() {
	local out="$TMP/theirs-perf-ptrace.out" err="$TMP/theirs-perf-ptrace.err" pidf="$TMP/theirs-ptrace.pid"
	local try bg rc i
	for try in 1 2 3; do
		rm -f "$pidf" "$TMP/theirs-perf-ptrace.fxt"
		"${ATTACKER[@]}" "$SNAPTRACE_TEST_BIN/ptraceat" "$pidf" perf script 60 >"$out" 2>&1 &
		bg=$!
		for i in $(seq 100); do
			grep -q '^watching$' "$out" && break
			sleep 0.05
		done
		# her tool follows this converter's children alone, never another suite's perf
		sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$pidf" timeout -k 5 60 "$CONVERT" -q "$THEIRS_MINE" \
			-o "$TMP/theirs-perf-ptrace.fxt" 2>"$err"
		rc=$?
		wait "$bg"
		# her perf script came and went between two of her looks: again
		grep -q '^pid ' "$out" && break
	done
	if blocked "$rc"; then
		fail theirs-perf-ptrace "the conversion waited until killed: $(first_lines "$out")"
	elif ! grep -q '^pid ' "$out"; then
		fail theirs-perf-ptrace "her tool never caught perf script in $try conversions: $(first_lines "$out") $(first_lines "$err")"
	elif ! grep -Eq '^pid [0-9]+ attach Operation not permitted mem Permission denied$' "$out"; then
		fail theirs-perf-ptrace "her perf script was hers to ptrace: $(grep '^pid ' "$out")"
	elif [ "$rc" -ne 0 ] || ! "$CONVERT" --dump=slices "$TMP/theirs-perf-ptrace.fxt" >/dev/null 2>&1; then
		fail theirs-perf-ptrace "the conversion failed (exit $rc): $(first_lines "$err")"
	else
		ok theirs-perf-ptrace
	fi
}

# theirs_perf_prestop: see the header.
theirs_perf_prestop() {
	local d="$TMP/prestop" data="$HOME_A/prestop.data" interp="$HOME_A/prestop-sh"
	local err="$TMP/theirs-perf-prestop.err" out="$TMP/prestop/trace.fxt" lease="$TMP/prestop/lease.out"
	local pidf="$TMP/prestop/convert.pid" bg rc pid
	mkdir -m 755 "$d"
	if ! jit_prog "$d/jit" || ! timeout -k 5 60 perf record -N -q -e cpu-clock:u -o "$data" -- \
		"${ATTACKER[@]}" "$d/jit" 1 >/dev/null 2>"$err"; then
		fail theirs-perf-prestop "her JIT or its recording failed: $(first_lines "$d/jit.cc") $(first_lines "$err")"
		return
	fi
	chown "$AUID:$AGID" "$data"	# hers: she could have written every byte of it
	as_attacker cp /bin/sh "$interp"
	printf '#!%s\nexec perf "$@"\n' "$interp" >"$d/wrap"
	chmod 755 "$d/wrap"
	# her lease holds the exec of her interpreter; its break stops her
	# processes below this converter alone (never another suite's)
	"${ATTACKER[@]}" "$SNAPTRACE_TEST_BIN/leaseat" "$interp" 60 keep "$pidf" >"$lease" 2>&1 &
	bg=$!
	if ! wait_until 10 grep -q '^leased$' "$lease"; then
		end_bg "$bg"
		fail theirs-perf-prestop "her lease was not taken: $(first_lines "$lease")"
		return
	fi
	sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$pidf" timeout -k 5 30 "$CONVERT" -q --perf "$d/wrap" \
		"$data" -o "$out" 2>"$err"
	rc=$?
	end_bg "$bg"
	pid=$(sed -n 's/^stopped //p' "$lease" | head -n 1)
	if blocked "$rc"; then
		fail theirs-perf-prestop "the conversion waited on her process stopped before its exec (pid $pid) until killed"
	elif [ -z "$pid" ]; then
		fail theirs-perf-prestop "she stopped no process in its exec (exit $rc): $(first_lines "$lease") $(first_lines "$err")"
	elif grep -v '^snaptrace-convert: warning: ' "$err" >"$err.error" &&
		refuses "$rc" theirs-perf-prestop 1 "^snaptrace-convert: $data: cannot run $d/wrap: pid $pid stopped for [0-9]+ s before its exec \(a stop signal or a debugger; it runs as uid $AUID, who may stop it\): given up$" "$err.error"; then
		# ended by the give-up (a zombie until init reaps it)
		wait_until 5 sh -c '! ps -o stat= -p "$1" | grep -qv Z' sh "$pid"
		verdict theirs-perf-prestop "$([ -e "$out" ] && echo "a trace was written")$(ps -o stat= -p "$pid" | grep -qv Z && echo "her stopped process (pid $pid) is left: $(ps -o user=,stat=,comm= -p "$pid")")"
	fi
	if ps -o stat= -p "$pid" 2>/dev/null | grep -q T; then	# hers, stopped by the test's own attacker
		kill -KILL "$pid" 2>/dev/null
	fi
}

# theirs_lease: see the header.
theirs_lease() {
	local d="$TMP/lease" bin="$BINS_A/lease-prog" err="$TMP/theirs-lease.err" lease="$TMP/lease/lease.out" bg rc
	mkdir -m 755 "$d"
	spin_source lease_work 300 >"$d/prog.c"
	if ! cc -O1 -g -fno-omit-frame-pointer -o "$bin" "$d/prog.c" 2>"$err" ||
		! chown "$AUID:$AGID" "$bin" ||
		! timeout -k 5 60 "$RECORD" -q -o "$d/rec" --trigger none -- "$bin" 2>"$err"; then
		fail theirs-lease "her program or root's recording of it failed: $(first_lines "$err")"
		return
	fi
	"${ATTACKER[@]}" "$SNAPTRACE_TEST_BIN/leaseat" "$bin" 60 yield >"$lease" 2>&1 &
	bg=$!
	if ! wait_until 10 grep -q '^leased$' "$lease"; then
		end_bg "$bg"
		fail theirs-lease "her lease was not taken: $(first_lines "$lease")"
		return
	fi
	timeout -k 5 120 "$CONVERT" -q "$d/rec" -o "$d/trace.fxt" 2>"$err"
	rc=$?
	end_bg "$bg"
	if blocked "$rc"; then
		fail theirs-lease "the conversion waited on her lease until killed: $(first_lines "$err")"
	elif [ "$rc" -ne 0 ] || ! "$CONVERT" --dump=slices "$d/trace.fxt" >"$d/slices" 2>&1; then
		fail theirs-lease "the conversion failed (exit $rc): $(first_lines "$err")"
	elif grep -q "$bin: gone" "$err"; then
		fail theirs-lease "her leased binary was said gone: $(grep -m1 "$bin: gone" "$err")"
	elif ! grep -q '^broken$' "$lease" ||
		! grep -q "^snaptrace-convert: warning: $bin: held by a lease of uid $AUID: " "$err"; then
		fail theirs-lease "no warning says her lease holds the binary: $(first_lines "$err") (her lease: $(first_lines "$lease"))"
	elif ! grep -q ' lease_work$' "$d/slices"; then
		fail theirs-lease "her function is not named: $(head -n 3 "$d/slices" | tr '\n' '|')"
	else
		ok theirs-lease
	fi
}

# debuglink_path: see the header.
debuglink_path() {
	local d="$TMP/dlpath" priv="$ROOTONLY/priv" bin="$HOME_A/dlpath" rc
	mkdir -p "$d" "$priv"
	chmod 700 "$priv"
	printf 'int root_only_secret_fn(int x) { return x * 3; }\n' >"$d/s.c"
	if ! cc -shared -fPIC -o "$priv/libsecret.so" "$d/s.c" 2>"$TMP/debuglink-path.err"; then
		fail debuglink-path "cannot build: $(first_lines "$TMP/debuglink-path.err")"
		return
	fi
	chmod 600 "$priv/libsecret.so"
	printf '%s\0\0\0\0\0\0\0\0' "$priv/libsecret.so" >"$d/link.bin"
	chmod 644 "$d/link.bin"
	chmod 755 "$d"
	spin_source dlpath_work 300 | cc -O1 -fno-omit-frame-pointer -Wl,--build-id=none -x c -o "$d/full" - \
		2>"$TMP/debuglink-path.err" && chmod 755 "$d/full" &&
		as_attacker sh -c 'strip -s "$1" -o "$2.s" && objcopy --add-section .gnu_debuglink="$3" "$2.s" "$2" && chmod 755 "$2"' \
		sh "$d/full" "$bin" "$d/link.bin" 2>>"$TMP/debuglink-path.err"
	if [ ! -x "$bin" ] || ! timeout -k 5 60 "$RECORD" -q -o "$d/rec" --trigger none -- "$bin" 2>>"$TMP/debuglink-path.err"; then
		fail debuglink-path "the attacker's program or root's recording failed: $(first_lines "$TMP/debuglink-path.err")"
		return
	fi
	timeout -k 5 60 "$CONVERT" -q "$d/rec" -o "$d/trace.fxt" >/dev/null 2>"$TMP/debuglink-path.err"
	rc=$?
	if [ -e "$d/trace.fxt" ] && "$CONVERT" --dump=slices "$d/trace.fxt" 2>&1 | grep -q 'root_only_secret_fn\|_fini'; then
		fail debuglink-path "root's trace names the attacker's frames from the root-only library"
	elif refuses "$rc" debuglink-path 1 "the binary $bin \(uid $AUID's\) names its debug file \"$priv/libsecret.so\" \(.gnu_debuglink\)" \
		"$TMP/debuglink-path.err"; then
		verdict debuglink-path "$([ -e "$d/trace.fxt" ] && echo "a trace was written")"
	fi
}

make_evil_trace
in_link_shared
in_link_nonsticky
out_link_shared
out_link_dangling
out_link_own_dir
out_dir_link
out_fifo_other
out_temp_squat
for t in rec_dir_other rec_json_swapped rec_dir_link rec_default_name rec_dir_shared \
	rec_dir_replaced tmpdir_link rec_perfmap_link rec_attach_fifo rec_attach_link rec_attach_own rec_lib_fifo rec_lib_link rec_launch_fifo rec_perfmap_total rec_probe_swapped rec_keep_fifo rec_keep_sparse rec_keep_swapped; do
	requires "${t//_/-}" recording && $t
done
requires rec-default-acl recording python3 posix_acl && rec_default_acl
cache_home_link
in_snapshot_link
in_snapshot_fifo
in_json_fifo
in_hardlink
in_killed_link
esc_stats
requires esc-csv-formula python3 && esc_csv_formula
esc_dump
esc_convert
esc_symbols
symbols_tsv
esc_picker
pick_impostor
pick_reused
requires exe-deleted-link recording cc python3 && exe_deleted_link
mntns_libs
kept_ok=1
for t in in-kept-fifo in-kept-link-out in-kept-swapped in-kept-stale in-kept-dir-link; do
	requires "$t" recording || kept_ok=0
done
[ "$kept_ok" = 1 ] && kept_tests
jit_ok=1
for t in $JIT_TESTS; do
	requires "$t" recording cc x86_64 || jit_ok=0
done
if [ "$jit_ok" = 1 ] && jit_recording; then
	requires in-perf-mountns user_namespace && in_perf_mountns
	theirs_jitdump_root
	in_jitdump_swapped
	in_jitdump_big
	perfmap_tests
fi
hang_symbols_fifo
hang_stats_fifo
hang_convert_fifo
hang_pt_dso_fifo
theirs_pt_rootonly
hang_dso_fifo
dso_ok=1
for t in in-dso-link in-dso-swapped; do
	requires "$t" recording cc || dso_ok=0
done
if [ "$dso_ok" = 1 ] && dso_recording; then
	in_dso_link
	in_dso_swapped
fi
requires in-buildid-cache recording cc && in_buildid_cache
requires home-plugins recording cc && home_plugins
requires debuglink-cwd recording cc binutils && debuglink_cwd
requires tmp-vdso-debug recording cc && tmp_vdso_debug
requires tmp-debug-dir recording cc binutils && tmp_debug_dir
requires kernel-oracle recording cc sched_switch && kernel_oracle
requires comm-newline recording cc sched_switch && comm_newline
theirs_ok=1
for t in theirs-dso-rootonly theirs-attr-bits theirs-perf-uid theirs-perf-env theirs-perf-fds theirs-perf-stopped theirs-perf-ptrace theirs-perf-session theirs-srcline-text theirs-measured-caller theirs-buildid-verdict; do
	requires "$t" recording cc python3 || theirs_ok=0
done
if [ "$theirs_ok" = 1 ] && theirs_recording; then
	theirs_dso_rootonly
	theirs_attr_bits
	theirs_perf_uid
	theirs_perf_env
	theirs_perf_fds
	theirs_perf_stopped
	theirs_perf_ptrace
	requires theirs-perf-session script keyrings && theirs_perf_session
	requires theirs-srcline-text binutils && theirs_srcline_text
	requires theirs-measured-caller binutils && theirs_measured_caller
	requires theirs-buildid-verdict binutils && theirs_buildid_verdict
fi
requires theirs-perf-prestop recording cc x86_64 && theirs_perf_prestop
requires theirs-lease recording cc && theirs_lease
requires debuglink-path recording cc binutils && debuglink_path
requires in-dwarf-bomb cc python3 && in_dwarf_bomb
requires in-dwz-altlink cc python3 binutils dwz && in_dwz_altlink
requires in-json-bomb python3 && in_json_bomb
requires in-json-string python3 && in_json_string
requires in-perfmap-big python3 && in_perfmap_big
requires rec-perfmap-nspid recording cc x86_64 user_namespace && rec_perfmap_nspid
gone_ok=1
for t in perfmap-gone-convert perfmap-loose; do
	requires "$t" recording cc x86_64 || gone_ok=0
done
[ "$gone_ok" = 1 ] && perfmap_gone_convert
requires perfmap-gone-record recording cc x86_64 && perfmap_gone_record
requires perfmap-child-launch recording cc x86_64 && perfmap_child_launch
requires perfmap-loose-setuid recording cc x86_64 setuid_sg && perfmap_loose_setuid
requires perfmap-setpriv-launch recording cc x86_64 pid_namespace && perfmap_setpriv_launch
requires perfmap-child-drop recording cc x86_64 pid_namespace && perfmap_child_drop
requires tmp-submount recording cc mount_namespace && tmp_submount
requires tmp-many-names recording cc && tmp_many_names
