# SPDX-License-Identifier: GPL-2.0-only
# prfpr --html on the host (sourced by run_host_tests.sh: its ok/run/same,
# $B, $W).  The page is rendered by headless Chromium (Debian's chromium,
# from scripts/deps.sh): its script must have drawn the rows, the modules,
# the flame graph and the timeline with the report's numbers.

H=$W/html
mkdir -p "$H"
"$B/unit_test" --make-fixture "$H/fx.prf"
run 0 "prfpr --html --from 1 --to 3" "$B/prfpr" --html "$H/r.html" --from 1 --to 3 "$H/fx.prf"
[ ! -s "$W/out" ] && head -1 "$H/r.html" | grep -q '^<!DOCTYPE html>$'
ok $? "prfpr --html: the page written, nothing on stdout"
! grep -Eiq '(src|href) *=|url\(|@import|<link|<iframe' "$H/r.html"
ok $? "prfpr --html: self-contained (no src, href, url(), @import, link)"
run 1 "prfpr --html /dev/full" "$B/prfpr" --html /dev/full --from 2 --to 3 "$H/fx.prf"
grep_err "/dev/full: No space left on device" "prfpr --html: a write error said"
run 2 "prfpr --html with --diff" "$B/prfpr" --html "$H/x.html" --diff 1:2 "$H/fx.prf"
run 2 "prfpr --stacks without --html" "$B/prfpr" --stacks "$H/x" "$H/fx.prf"
printf 'a;b 3\na;c x\n' >"$H/bad.folded"
run 1 "prfpr --html --stacks (a bad line)" "$B/prfpr" --html "$H/x.html" --stacks "$H/bad.folded" --from 2 --to 3 "$H/fx.prf"
grep_err "bad.folded:2: want 'frame;frame;... count'" "prfpr --stacks: the bad line named"

CHROME=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { CHROME=$c; break; }
done
# dom URL OUT: the DOM after the page's script ran.
dom() {
	timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --user-data-dir="$H/profile" \
		--virtual-time-budget=5000 --dump-dom "$1" >"$2" 2>"$H/chrome.err"
}
# The function rows of a dumped DOM: "samples,percent,name,module".
fn_rows() {
	grep -o '<tr class="fn"[^>]*><td>[0-9]*</td><td>[0-9.]*</td><td class="l">[^<]*</td><td class="l">[^<]*</td>' "$1" |
		sed 's/^<tr[^>]*><td>\([0-9]*\)<\/td><td>\([0-9.]*\)<\/td><td class="l">\([^<]*\)<\/td><td class="l">\([^<]*\)<\/td>$/\1,\2,\3,\4/'
}
# The same from prfpr --csv: every function of the report.
csv_fn() { awk -F, 'NR > 1 && $6 != "total" { print $1 "," $2 "," $3 "," $4 }' "$1"; }
if [ -z "$CHROME" ]; then
	skip "prfpr --html rendered by Chromium" "chromium not installed (scripts/deps.sh installs it)"
else
	dom "file://$H/r.html" "$H/dom"
	ok $? "$CHROME --headless --dump-dom renders the page"
	[ $? -eq 0 ] || diag "$H/chrome.err"
	grep -q '<body data-rendered="1">' "$H/dom"
	ok $? "the page's script ran to its end"
	"$B/prfpr" --csv -c 0 --from 1 --to 3 "$H/fx.prf" >"$H/r.csv"
	fn_rows "$H/dom" >"$H/got"
	csv_fn "$H/r.csv" >"$H/want"
	same "$H/got" "$H/want" "the DOM's function rows: prfpr's samples, percentages, names, modules, in its order"
	# Modules: their functions' samples summed, largest first.
	grep -o '<tr class="mod"[^>]*><td>[0-9]*</td><td>[0-9.]*</td><td class="l">[^<]*</td>' "$H/dom" |
		sed 's/.*<td>\([0-9]*\)<\/td><td>\([0-9.]*\)<\/td><td class="l">\([^<]*\)<\/td>$/\1,\2,\3/' >"$H/got"
	base=$(awk -F, '$3 == "[kernel]" || $3 == "[outside]" { s += $1 } END { print s }' "$H/r.csv")
	csv_fn "$H/r.csv" | awk -F, -v b="$base" '{ s[$4] += $1 } END { for (m in s) printf "%d,%.2f,%s\n", s[m], 100 * s[m] / b, m }' |
		sort -t, -k1,1nr >"$H/want"
	same "$H/got" "$H/want" "the DOM's modules: each module's samples and share"
	# The flame graph (no stacks): all, then modules and [outside], then functions.
	grep -o '<div class="fg" data-name="[^"]*" data-samples="[0-9]*" data-depth="[0-9]*"' "$H/dom" |
		sed 's/.*data-name="\([^"]*\)" data-samples="\([0-9]*\)" data-depth="\([0-9]*\)"/\3 \1 \2/' | sort >"$H/got"
	{
		echo "0 all $base"
		csv_fn "$H/r.csv" | awk -F, '{ print "2 " $3 " " $1; s[$4] += $1 } END { for (m in s) print "1 " m " " s[m] }'
		awk -F, '$3 == "[outside]" && $1 > 0 { print "1 [outside] " $1 }' "$H/r.csv"
	} | sort >"$H/want"
	same "$H/got" "$H/want" "the DOM's flame graph: a node per module and function, with their samples"
	# The timeline: intervals 1-2 and 2-3, shares of all samples.
	grep -o '<tr class="iv" data-index="[0-9]*">.*</tr>' "$H/dom" | sed 's/<\/tr>/&\n/g' |
		sed -n 's/^<tr class="iv" data-index="\([0-9]*\)"><td>[0-9]*<\/td><td>[^<]*<\/td><td>\([0-9.]*\)<\/td><td>\([0-9.]*\)<\/td><td>\([0-9.]*\)<\/td><td>\([0-9.]*\)<\/td><td>\([0-9.]*\)<\/td>.*/\1 \2 \3 \4 \5 \6/p' >"$H/got"
	for i in 2 3; do
		"$B/prfpr" --csv -c 0 --from $((i - 1)) --to $i "$H/fx.prf" |
			awk -F, -v i=$i '$3 == "[kernel]" || $3 == "[outside]" { k += $1 } $3 == "[user]" { u = $1 }
				$3 == "[idle]" { d = $1 } $3 == "[total]" { t = $1 } $3 == "alpha" { a = $1 }
				END { printf "%d 60.00 %.2f %.2f %.2f %.2f\n", i, 100 * k / t, 100 * u / t, 100 * d / t, 100 * a / t }'
	done >"$H/want"
	same "$H/got" "$H/want" "the DOM's timeline: per interval its seconds, kernel/user/idle and the top function's share"
	nf=$(awk -F, '$6 == "function" { n++ } END { print (n > 5 ? 5 : n) + 3 }' "$H/r.csv")
	[ "$(grep -o '<polyline[^>]*class="series"' "$H/dom" | wc -l)" -eq "$nf" ]
	ok $? "the timeline's chart: kernel, user, idle and the top functions drawn ($nf lines)"
	# Sorting: the page opened as FILE#sort=KEY sorts as a click on KEY does.
	for k in name module address; do
		dom "file://$H/r.html#sort=$k" "$H/dom.$k"
		fn_rows "$H/dom.$k" >"$H/got"
		"$B/prfpr" --csv -c 0 --sort $k --from 1 --to 3 "$H/fx.prf" >"$H/s.csv"
		csv_fn "$H/s.csv" >"$H/want"
		same "$H/got" "$H/want" "the table sorted by $k in the browser as prfpr --sort $k"
	done
	# Folded stacks (--stacks, as the stack records will give): a tree whose
	# nodes sum their stacks' counts.
	printf 'kernel;vfs_read;read_zero;clear_user 60\nkernel;vfs_read;read_zero 10\n\nkernel;vfs_write;write_null 30\n[user] 5\n' >"$H/st.folded"
	run 0 "prfpr --html --stacks" "$B/prfpr" --html "$H/st.html" --stacks "$H/st.folded" --from 2 --to 3 "$H/fx.prf"
	dom "file://$H/st.html" "$H/dom.st"
	grep -o '<div class="fg" data-name="[^"]*" data-samples="[0-9]*" data-depth="[0-9]*"' "$H/dom.st" |
		sed 's/.*data-name="\([^"]*\)" data-samples="\([0-9]*\)" data-depth="\([0-9]*\)"/\3 \1 \2/' >"$H/got"
	printf '0 all 105\n1 kernel 100\n2 vfs_read 70\n3 read_zero 70\n4 clear_user 60\n2 vfs_write 30\n3 write_null 30\n1 [user] 5\n' >"$H/want"
	same "$H/got" "$H/want" "the flame graph of folded stacks: each frame once per path, its stacks' sum, largest first"
	# A prf record -g -o file with pairs (run_host_tests.sh's $W/up.prf:
	# 7 samples of a kernel stack alpha;beta, 5 of them paired with a
	# user chain, 4 under main;c_plain, 1 truncated under c_plain; the
	# user objects table's rows c_plain 8 and mycrate::foo 4, its chains
	# 6, 4, 1 and 1 sample of none).  The page must draw, from the pairs,
	# the kernel frames under the user frame that made the system call
	# (alpha 4 under main;c_plain, 1 under [truncated];c_plain) and
	# alpha at the root with the 2 unpaired samples alone (not 7: no
	# sample twice, 19 in all); and the user rows in its functions table
	# (%busy), from the report's rows, not from the flame graph's names.
	if [ -s "$W/up.prf" ]; then
		run 0 "prfpr --html of prf record -g -o's file with pairs" "$B/prfpr" --html "$H/up.html" "$W/up.prf"
		dom "file://$H/up.html" "$H/dom.up"
		GA="ggc_internal_alloc(unsigned long, void (*)(void*), unsigned long, unsigned long)"
		grep -o '<div class="fg" data-name="[^"]*" data-samples="[0-9]*" data-depth="[0-9]*"' "$H/dom.up" |
			sed 's/.*data-name="\([^"]*\)" data-samples="\([0-9]*\)" data-depth="\([0-9]*\)"/\3 \1 \2/' >"$H/got"
		printf '%s\n' "0 all 19" "1 cxxprog 16" "2 main 10" "3 $GA 6" "4 c_plain 6" "3 c_plain 4" \
			"4 alpha 4" "5 beta 4" "2 [anonymous/JIT] 4" "3 mycrate::foo 4" "2 [truncated] 2" \
			"3 c_plain 1" "4 alpha 1" "5 beta 1" "3 main 1" "4 c_plain 1" "1 alpha 2" "2 beta 2" \
			"1 [user] 1" >"$H/want"
		same "$H/got" "$H/want" "prfpr --html, pairs: the flame graph draws each paired sample's kernel frames under its user frames, the unpaired alone, 19 samples in all"
		fn_rows "$H/dom.up" >"$H/got"
		printf '%s\n' "8,66.67,c_plain,cxxprog" "4,33.33,mycrate::foo,cxxprog" >"$H/want"
		same "$H/got" "$H/want" "prfpr --html, a prf record file: its functions table has the user rows, %busy"
		grep -q '<th data-key="percent"[^>]*>%busy<br><small>% of busy samples</small></th>' "$H/dom.up"
		ok $? "prfpr --html, a prf record file: the percentages are %busy, said in the column's head"
		# --of kernel: the kernel's 7 samples alone, the 5 paired under
		# their user frames; neither the user samples' chains nor [user]
		run 0 "prfpr --html --of kernel of the file with pairs" "$B/prfpr" --html "$H/upk.html" \
			--of kernel "$W/up.prf"
		dom "file://$H/upk.html" "$H/dom.upk"
		grep -o '<div class="fg" data-name="[^"]*" data-samples="[0-9]*" data-depth="[0-9]*"' "$H/dom.upk" |
			sed 's/.*data-name="\([^"]*\)" data-samples="\([0-9]*\)" data-depth="\([0-9]*\)"/\3 \1 \2/' >"$H/got"
		printf '%s\n' "0 all 7" "1 cxxprog 5" "2 main 4" "3 c_plain 4" "4 alpha 4" "5 beta 4" \
			"2 [truncated] 1" "3 c_plain 1" "4 alpha 1" "5 beta 1" "1 alpha 2" "2 beta 2" >"$H/want"
		same "$H/got" "$H/want" "prfpr --html --of kernel, pairs: the flame graph draws the kernel's samples alone, the paired under their user frames, no user sample's chain"
	else
		skip "prfpr --html, pairs: the flame graph and the user rows" "no \$W/up.prf (objdump -F found no offsets in cxxprog)"
	fi
	run 0 "prfpr --html -m ext4" "$B/prfpr" --html "$H/m.html" -m ext4 --from 1 --to 3 "$H/fx.prf"
	dom "file://$H/m.html" "$H/dom.m"
	fn_rows "$H/dom.m" >"$H/got"
	csv_fn "$H/r.csv" | awk -F, '$4 == "ext4"' >"$H/want"
	same "$H/got" "$H/want" "prfpr --html -m ext4: the module's rows alone"
	# A picture: not blank (more than a handful of colours).
	timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --user-data-dir="$H/profile" \
		--hide-scrollbars --window-size=1000,1100 --screenshot="$H/shot.png" "file://$H/r.html" \
		>/dev/null 2>"$H/chrome.err"
	ok $? "$CHROME --screenshot of the page"
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$H/shot.png" <<'X' 2>&1 | diag
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, w = 8, b'', 0
while pos < len(d):
    n, t = struct.unpack('>I4s', d[pos:pos + 8])
    if t == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', d[pos + 8:pos + 18])
    if t == b'IDAT':
        idat += d[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ctype]
# Filter bytes aside, distinct byte triples of the rows: a blank page has one.
colours = set()
stride = 1 + w * bpp
for y in range(0, h, 7):
    row = raw[y * stride + 1:(y + 1) * stride]
    for x in range(0, len(row) - 3, bpp * 5):
        colours.add(row[x:x + 3])
assert w == 1000 and len(colours) > 20, (w, len(colours))
X
		ok $? "the screenshot is a 1000-pixel-wide PNG of many colours (not blank)"
	fi
fi
# Layout at 1400 px (the page as it is, with a probe script appended to a
# copy): facts computed in the browser after the page's script ran, one a
# line in <pre id="facts">.
facts() {	# facts PAGE OUT
	sed 's|</body>|<script>(function(){var L=[],d=document.documentElement;\
L.push("overflow "+(d.scrollWidth>d.clientWidth?"yes "+d.scrollWidth+">"+d.clientWidth:"no"));\
var tl=document.getElementById("timeline"),svg=tl.querySelector("svg");\
if(svg){var n=0;svg.querySelectorAll("polyline").forEach(function(p){\
if(p.getAttribute("points").split(" ").length<2)n++;});L.push("chart "+svg.querySelectorAll("polyline").length+\
" lines, "+n+" of one point, "+svg.querySelectorAll("text.ytick").length+" y labels, "+\
svg.querySelectorAll("text.xtick").length+" time labels");}else L.push("chart none: "+tl.textContent);\
document.querySelectorAll("table").forEach(function(t){var h=[];t.querySelectorAll("thead th").forEach(function(th){\
var u=th.querySelector("small");h.push(th.firstChild.textContent+(u?" ("+u.textContent+")":""));});\
L.push("columns "+t.id+": "+h.join(" \| "));});\
var f=document.getElementById("functions");\
L.push("functions "+(f.parentNode.clientHeight<f.offsetHeight?"clipped":"whole"));\
var p=document.createElement("pre");p.id="facts";p.textContent=L.join("\\n");document.body.appendChild(p);})();</script></body>|' "$1" >"$1.probe.html"
	rm -rf "$H/profile"
	timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --user-data-dir="$H/profile" \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --hide-scrollbars --window-size=1400,1000 --virtual-time-budget=5000 \
		--dump-dom "file://$1.probe.html" 2>"$H/chrome.err" |
		sed -n '/<pre id="facts">/,/<\/pre>/p' | sed -e 's/.*<pre id="facts">//' -e 's/<\/pre>.*//' \
		-e 's/&amp;/\&/g' -e 's/&lt;/</g' -e 's/&gt;/>/g' >"$2"
}
if [ -n "$CHROME" ]; then
	# Two snapshots, the README's flow: one interval, said in words (no
	# chart box of a one-point line); every column named with its unit.
	"$B/unit_test" --make-series "$H/two.prf" 2 5
	run 0 "prfpr --html, a file of two snapshots" "$B/prfpr" --html "$H/two.html" "$H/two.prf"
	facts "$H/two.html" "$H/got"
	cat >"$H/want" <<'X'
overflow no
chart none: One interval: a timeline needs a file of three snapshots or more (prfdc, or prfsnap again).
columns summary: what | samples (count) | share (% of all) | note
columns functions: samples (count) | %kernel (% of kernel samples) | function (name) | module (name) | address (hex) | bar (of the largest)
columns modules: samples (count) | %kernel (% of kernel samples) | module (name)
functions whole
X
	same "$H/got" "$H/want" "prfpr --html, two snapshots, at 1400 px: no chart box, no overflow, every column with its unit, the functions table whole"
	# Three snapshots and long names (C++ ones are): the timeline drawn with
	# its axes and times, its table within the page at 1400 px.
	{
		echo "ffffffff9a000000 T _text"
		for a in 9a000000 9a000100 9a000200 9a000300; do
			echo "ffffffff$a T ${a}_a_rather_long_function_name_as_templated_cxx_code_has_xxxxxxxxxxxxxxxxxxxx"
		done
	} >"$H/long.txt"
	run 0 "prfpr --html, three snapshots, long names" "$B/prfpr" --html "$H/long.html" --from 1 --to 3 "$H/fx.prf" 1 "$H/long.txt"
	facts "$H/long.html" "$H/got"
	L=_a_rather_long_function_name_as_templated_cxx_code_has_xxxxxxxxxxxxxxxxxxxx
	cat >"$H/want" <<X
overflow no
chart 8 lines, 0 of one point, 5 y labels, 2 time labels
columns summary: what | samples (count) | share (% of all) | note
columns timeline-table: # | end (UTC) | length (seconds) | kernel (% of all) | user (% of all) | idle (% of all) | 9a000000$L (% of all) | 9a000200$L (% of all) | 9a000100$L (% of all) | 9a000300$L+0x1000100 (% of all) | 9a000300$L (% of all)
columns functions: samples (count) | %kernel (% of kernel samples) | function (name) | module (name) | address (hex) | bar (of the largest)
columns modules: samples (count) | %kernel (% of kernel samples) | module (name)
functions whole
X
	same "$H/got" "$H/want" "prfpr --html, three snapshots, long names, at 1400 px: the chart with axes and times, no overflow, every column with its unit"
fi
if [ "${VALGRIND:-1}" != 0 ] && command -v valgrind >/dev/null 2>&1; then
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible "$B/prfpr" --html "$H/vg.html" -a "$H/fx.prf" >"$W/vg.out" 2>&1
	ok $? "valgrind: prfpr --html"
	[ $? -eq 0 ] || tail -20 "$W/vg.out" | diag
fi
