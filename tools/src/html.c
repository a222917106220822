// SPDX-License-Identifier: GPL-2.0-only
/*
 * html - prfpr --html: the report as one HTML page.  The numbers are
 * written as JSON into the page; its own small script draws the function
 * table (sortable: click a heading, or open the page as FILE#sort=KEY),
 * the modules, the flame graph (an icicle: outermost frame on top) from
 * folded stacks, and the timeline.  No library, nothing from the network.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/prf.h>

#include "html.h"
#include "irqoff.h"
#include "namelist.h"
#include "report.h"
#include "source.h"
#include "stacks.h"

#define TIMELINE_TOP 5	/* functions drawn in the timeline */

/* A JSON string that is safe inside <script>: no "</", no "<!--". */
static void jstr(FILE *out, const char *s)
{
	report_json_str(out, s, 1);
}

/* Text for HTML. */
static void hstr(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

static double pct(uint64_t v, uint64_t all)
{
	return all ? 100.0 * (double)v / (double)all : 0.0;
}

static void fmt_time(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%" PRId64, ns);
}

static const char css[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}\n"
"h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.4em 0 .4em}\n"
"table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right;white-space:nowrap}\n"
"td.l,th.l{text-align:left}th{background:#eee;cursor:pointer;user-select:none}\n"
"tr:nth-child(even) td{background:#f7f7f7}\n"
"#summary td{text-align:right}#summary th{cursor:default}\n"
".bar{display:inline-block;height:.8em;background:#d9534f;vertical-align:middle}\n"
"#flame{position:relative;border:1px solid #ccc;overflow:hidden}\n"
".fg{position:absolute;height:17px;box-sizing:border-box;border:1px solid #fff;\n"
" font-size:11px;line-height:15px;overflow:hidden;white-space:nowrap;padding:0 2px;\n"
" cursor:pointer;color:#000}\n"
".fg:hover{border-color:#000}\n"
"#timeline svg{border:1px solid #ccc;background:#fcfcfc}\n"
".muted{color:#777}\n"
".irq{color:#d9534f;font-weight:bold;cursor:help}\n"
"#timeline-table th.f{white-space:normal;overflow-wrap:anywhere;max-width:11em;vertical-align:bottom}\n"
"th small{font-weight:normal;color:#555}\n"
".wide{max-width:100%;overflow-x:auto}\n"
"svg text{font-size:11px;fill:#444}svg .axis{stroke:#888;stroke-width:1}svg .grid{stroke:#e4e4e4}\n";

/* The page's script: draws everything from the JSON in #prf-data. */
static const char js[] =
"(function(){\n"
"var D=JSON.parse(document.getElementById('prf-data').textContent);\n"
"function el(t,a,txt){var e=document.createElement(t);for(var k in a)e.setAttribute(k,a[k]);\n"
" if(txt!==undefined)e.textContent=txt;return e;}\n"
"function pc(v,b){return b?(100*v/b).toFixed(2):'0.00';}\n"
"/* The function table. */\n"
"var rows=D.functions.map(function(f){return {name:f[0],module:f[1],address:f[2],samples:f[3],irq:f[4]};});\n"
"var keys={samples:-1,percent:-1,name:1,module:1,address:1},cur=null,dir=0;\n"
"/* As prfpr --sort: the key, then the most samples, then the address. */\n"
"function cmp(k,d){return function(a,b){var x=k=='percent'?'samples':k,p=a[x],q=b[x];\n"
" if(p<q)return -d;if(p>q)return d;if(x!='address'&&a.samples!=b.samples)return b.samples-a.samples;\n"
" return a.address<b.address?-1:a.address>b.address?1:0;};}\n"
"function table(k,d){cur=k;dir=d;rows.sort(cmp(k,d));var tb=document.querySelector('#functions tbody');\n"
" tb.textContent='';var top=rows.reduce(function(m,r){return Math.max(m,r.samples);},0);\n"
" rows.forEach(function(r){var tr=el('tr',{'class':'fn','data-name':r.name,'data-samples':r.samples});\n"
"  tr.appendChild(el('td',{},String(r.samples)));tr.appendChild(el('td',{},pc(r.samples,D.base)));\n"
"  var nm=tr.appendChild(el('td',{'class':'l'},r.name));if(r.irq)nm.appendChild(el('span',{'class':'irq',\n"
"   title:'interrupts come back on here: these samples hold time of code before it run with them off'},'*'));\n"
"  tr.appendChild(el('td',{'class':'l'},r.module));\n"
"  tr.appendChild(el('td',{'class':'l'},r.address));var b=el('td',{'class':'l'});\n"
"  b.appendChild(el('span',{'class':'bar',style:'width:'+(top?Math.max(1,Math.round(200*r.samples/top)):0)+'px'}));\n"
"  tr.appendChild(b);tb.appendChild(tr);});\n"
" document.querySelectorAll('#functions th').forEach(function(th){var k2=th.getAttribute('data-key');\n"
"  th.setAttribute('aria-sort',k2==cur?(d>0?'ascending':'descending'):'none');});}\n"
"document.querySelectorAll('#functions th').forEach(function(th){th.addEventListener('click',function(){\n"
" var k=th.getAttribute('data-key');if(!k)return;table(k,k==cur?-dir:keys[k]);});});\n"
"var m=/sort=(\\w+)(,(asc|desc))?/.exec(location.hash),sk=m&&keys[m[1]]?m[1]:'samples';\n"
"table(sk,m&&m[3]?(m[3]=='asc'?1:-1):keys[sk]);\n"
"/* Modules. */\n"
"var mods={};rows.forEach(function(r){mods[r.module]=(mods[r.module]||0)+r.samples;});\n"
"var mb=document.querySelector('#modules tbody');Object.keys(mods).sort(function(a,b){\n"
" return mods[b]-mods[a]||(a<b?-1:1);}).forEach(function(k){var tr=el('tr',{'class':'mod','data-name':k,'data-samples':mods[k]});\n"
" tr.appendChild(el('td',{},String(mods[k])));tr.appendChild(el('td',{},pc(mods[k],D.base)));\n"
" tr.appendChild(el('td',{'class':'l'},k));mb.appendChild(tr);});\n"
"/* The flame graph: folded stacks into a tree, drawn as an icicle. */\n"
"var root={name:'all',value:0,kids:{}};\n"
"D.stacks.forEach(function(s){var n=root;n.value+=s[1];s[0].split(';').forEach(function(f){\n"
" if(!n.kids[f])n.kids[f]={name:f,value:0,kids:{}};n=n.kids[f];n.value+=s[1];});});\n"
"/* A frame's count: samples, or in the offcpu mode the time waited (ns). */\n"
"function fv(v){if(D.unit!='nanoseconds')return v+' samples';\n"
" return v<1e3?v+' ns':v<1e6?(v/1e3).toFixed(1)+' us':v<1e9?(v/1e6).toFixed(1)+' ms':(v/1e9).toFixed(2)+' s';}\n"
"function hue(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))%360;return h;}\n"
"var fl=document.getElementById('flame'),shown=root;\n"
"function draw(top){shown=top;fl.textContent='';var depth=0;\n"
" (function walk(n,x,w,d){if(w<0.05)return;depth=Math.max(depth,d+1);\n"
"  var e=el('div',{'class':'fg','data-name':n.name,'data-samples':n.value,'data-depth':d,\n"
"   title:n.name+': '+fv(n.value)+' ('+pc(n.value,root.value)+'% of all in the graph)',\n"
"   style:'left:'+x.toFixed(4)+'%;width:'+w.toFixed(4)+'%;top:'+(d*17)+'px;background:hsl('+\n"
"   (n===root?0:hue(n.name)%60)+',80%,'+(n===root?85:65)+'%)'},n.name);\n"
"  e.addEventListener('click',function(ev){ev.stopPropagation();draw(n===shown?root:n);});\n"
"  fl.appendChild(e);var kx=x;Object.keys(n.kids).map(function(k){return n.kids[k];})\n"
"  .sort(function(a,b){return b.value-a.value||(a.name<b.name?-1:1);}).forEach(function(c){\n"
"   var cw=n.value?w*c.value/n.value:0;walk(c,kx,cw,d+1);kx+=cw;});})(top,0,100,0);\n"
" fl.style.height=(depth*17+2)+'px';}\n"
"draw(root);\n"
"/* The timeline: shares of all samples (kernel, user, idle and the top\n"
" * functions) per interval, drawn over the intervals' end times. */\n"
"var T=D.timeline,tl=document.getElementById('timeline');\n"
"function hd(t,u,c){var h=el('th',c?{'class':c}:{},t);if(u){h.appendChild(el('br'));h.appendChild(el('small',{},u));}return h;}\n"
"if(T&&T.intervals.length>1){var tt=el('table',{id:'timeline-table'}),h=el('tr'),N=T.intervals.length;\n"
" [['#',''],['end','UTC'],['length','seconds'],['kernel','% of all'],['user','% of all'],['idle','% of all']]\n"
" .forEach(function(c){h.appendChild(hd(c[0],c[1]));});\n"
" T.top.forEach(function(f){h.appendChild(hd(f,'% of all','f'));});tt.appendChild(el('thead')).appendChild(h);\n"
" var tb=tt.appendChild(el('tbody')),L=48,R=12,TP=8,W=640,H=160,pts={};\n"
" function X(i){return L+W*i/(N-1);}function Y(v){return TP+H-H*v/100;}\n"
" var ser=['kernel','user','idle'].concat(T.top.map(function(_,i){return 'f'+i;}));\n"
" T.intervals.forEach(function(iv,i){var tr=el('tr',{'class':'iv','data-index':iv.index});\n"
"  [String(iv.index),iv.end.replace(/ UTC$/,''),iv.seconds.toFixed(2),pc(iv.kernel,iv.all),pc(iv.user,iv.all),pc(iv.idle,iv.all)]\n"
"  .concat(iv.top.map(function(v){return pc(v,iv.all);})).forEach(function(s){tr.appendChild(el('td',{},s));});\n"
"  tb.appendChild(tr);ser.forEach(function(k,j){var v=j<3?iv[k]:iv.top[j-3];\n"
"   (pts[k]=pts[k]||[]).push(X(i).toFixed(1)+','+Y(iv.all?100*v/iv.all:0).toFixed(1));});});\n"
" var NS='http://www.w3.org/2000/svg',svg=document.createElementNS(NS,'svg'),SW=L+W+R,SH=TP+H+40;\n"
" function sv(t,a,txt){var e=document.createElementNS(NS,t);for(var k in a)e.setAttribute(k,a[k]);\n"
"  if(txt!==undefined)e.textContent=txt;svg.appendChild(e);return e;}\n"
" svg.setAttribute('width',SW);svg.setAttribute('height',SH);svg.setAttribute('viewBox','0 0 '+SW+' '+SH);\n"
" [0,25,50,75,100].forEach(function(p){sv('line',{'class':p?'grid':'axis',x1:L,x2:L+W,y1:Y(p),y2:Y(p)});\n"
"  sv('text',{'class':'ytick',x:L-4,y:Y(p)+4,'text-anchor':'end'},p+'%');});\n"
" sv('line',{'class':'axis',x1:L,x2:L,y1:TP,y2:TP+H});\n"
" var step=Math.max(1,Math.ceil((N-1)/6));T.intervals.forEach(function(iv,i){\n"
"  if(i%step&&i!=N-1)return;sv('line',{'class':'axis',x1:X(i),x2:X(i),y1:TP+H,y2:TP+H+4});\n"
"  sv('text',{'class':'xtick',x:X(i),y:TP+H+16,'text-anchor':i==0?'start':i==N-1?'end':'middle'},iv.end.substr(11,8));});\n"
" sv('text',{x:L+W/2,y:SH-4,'text-anchor':'middle'},'end of each interval (UTC)');\n"
" sv('text',{x:12,y:TP+H/2,'text-anchor':'middle',transform:'rotate(-90 12 '+(TP+H/2)+')'},'% of all samples');\n"
" var col=['#d9534f','#5bc0de','#aaa','#f0ad4e','#5cb85c','#337ab7','#8e44ad','#795548'];\n"
" ser.forEach(function(k,j){sv('polyline',{points:pts[k].join(' '),fill:'none',stroke:col[j%col.length],\n"
"  'stroke-width':2,'class':'series','data-series':j<3?k:T.top[j-3]});});\n"
" tl.appendChild(svg);var lg=el('p',{'class':'muted'});ser.forEach(function(k,j){\n"
"  var s=el('span',{style:'color:'+col[j%col.length]},'\\u25a0 '+(j<3?k:T.top[j-3])+'  ');lg.appendChild(s);});\n"
" tl.appendChild(lg);tl.appendChild(el('div',{'class':'wide'})).appendChild(tt);}\n"
"else tl.appendChild(el('p',{'class':'muted'},\n"
" 'One interval: a timeline needs a file of three snapshots or more (prfdc, or prfsnap again).'));\n"
"document.body.setAttribute('data-rendered','1');\n"
"})();\n";

/* Same function as (module, name) in another report's table? */
static int same_fn(const struct snap_table *a, size_t ia, const struct snap_table *b, size_t ib)
{
	return !strcmp(a->e[ia].name, b->e[ib].name) &&
	       !strcmp(report_module(a, ia), report_module(b, ib));
}

/* The timeline's JSON: each pair of consecutive snapshots from first to last. */
static void timeline(FILE *out, const struct html_input *in)
{
	const struct report *r = in->r;
	size_t top[TIMELINE_TOP], ntop = 0, i, k;
	long s;
	int any = 0;

	fprintf(out, ",\n\"timeline\":{\"top\":[");
	for (i = 0; i < r->nrows && ntop < TIMELINE_TOP; i++) {
		const char *m = report_module(r->t, r->rows[i].idx);

		if (r->t->e[r->rows[i].idx].kind == SYM_SENTINEL ||
		    (in->o->modules && !report_in_list(in->o->modules, m)))
			continue;
		top[ntop] = r->rows[i].idx;
		fprintf(out, "%s", ntop ? "," : "");
		jstr(out, report_name(r->t, top[ntop]));
		ntop++;
	}
	fprintf(out, "],\"intervals\":[");
	for (s = in->first + 1; in->f && s <= in->last; s++) {
		struct report ri;
		char err[256], tb[64];

		if (report_from_file(&ri, in->f, s - 1, s, err, sizeof(err)))
			continue;	/* a reload between them: no interval */
		fmt_time(tb, sizeof(tb), ri.b->time_ns);
		fprintf(out, "%s\n{\"index\":%ld,\"end\":\"%s\",\"seconds\":%.3f,\"kernel\":%" PRIu64
			",\"user\":%" PRIu64 ",\"idle\":%" PRIu64 ",\"all\":%" PRIu64 ",\"top\":[",
			any ? "," : "", s, tb, ri.seconds, ri.kernel + ri.outside, ri.user, ri.idle,
			ri.all);
		for (k = 0; k < ntop; k++) {
			uint64_t v = 0;

			for (i = 0; i < ri.nrows; i++)
				if (same_fn(r->t, top[k], ri.t, ri.rows[i].idx)) {
					v = ri.rows[i].samples;
					break;
				}
			fprintf(out, "%s%" PRIu64, k ? "," : "", v);
		}
		fprintf(out, "]}");
		any = 1;
		report_free(&ri);
	}
	fprintf(out, "]}");
}

static void data(FILE *out, const struct html_input *in)
{
	const struct report *r = in->r;
	const struct report_opts *o = in->o;
	size_t i, n = 0;
	const int irq = irqoff_applies(r);

	fprintf(out, "{\"of\":\"%s\",\"base\":%" PRIu64 ",\"unit\":\"%s\",\"weight\":%.0f,"
		"\n\"functions\":[", report_of_name(o->of), report_base(r, o->of),
		report_unit(r), report_weight(r));
	for (i = 0; i < r->nrows; i++) {
		const char *m = report_module(r->t, r->rows[i].idx);
		uint64_t a;

		if (o->modules && !report_in_list(o->modules, m))
			continue;
		fprintf(out, "%s\n[", n++ ? "," : "");
		jstr(out, report_name(r->t, r->rows[i].idx));
		fputc(',', out);
		jstr(out, m);
		fprintf(out, ",\"%016" PRIx64 "\",%" PRIu64 ",%d]",
			report_address(r->t, r->rows[i].idx, &a) ? a : 0, r->rows[i].samples,
			irq && irqoff_entry(r, r->rows[i].idx));
	}
	fprintf(out, "],\n\"stacks\":[");
	n = 0;
	if (in->stacks) {
		for (i = 0; i < in->nstacks; i++) {
			fprintf(out, "%s\n[", n++ ? "," : "");
			jstr(out, in->stacks[i].frames);
			fprintf(out, ",%" PRIu64 "]", in->stacks[i].count);
		}
	} else {
		/* No stacks: the hierarchy module -> function, and the rest. */
		for (i = 0; i < r->nrows; i++) {
			const char *m = report_module(r->t, r->rows[i].idx);
			char *fr = NULL;

			if (o->modules && !report_in_list(o->modules, m))
				continue;
			if (asprintf(&fr, "%s;%s", m, report_name(r->t, r->rows[i].idx)) < 0)
				continue;
			fprintf(out, "%s\n[", n++ ? "," : "");
			jstr(out, fr);
			fprintf(out, ",%" PRIu64 "]", r->rows[i].samples);
			free(fr);
		}
		if (!o->modules) {
			if (r->outside)
				fprintf(out, "%s\n[\"[outside]\",%" PRIu64 "]", n++ ? "," : "", r->outside);
			/* of the user samples, those no user row holds */
			if (o->of != OF_KERNEL && r->user_rest)
				fprintf(out, "%s\n[\"[user]\",%" PRIu64 "]", n++ ? "," : "",
					r->user_rest);
			if (o->of == OF_ALL && r->idle)
				fprintf(out, "%s\n[\"[idle]\",%" PRIu64 "]", n++ ? "," : "", r->idle);
		}
	}
	fprintf(out, "]");
	timeline(out, in);
	fprintf(out, "}\n");
}

static void summary_row(FILE *out, const char *what, uint64_t v, uint64_t all, const char *note)
{
	fprintf(out, "<tr><th class=\"l\">%s</th><td>%" PRIu64 "</td><td>%.2f%%</td>"
		"<td class=\"l muted\">%s</td></tr>\n", what, v, pct(v, all), note);
}

static void summary(FILE *out, const struct html_input *in)
{
	const struct report *r = in->r;
	const struct snapshot *b = r->b;
	char ta[64], tb[64];

	fprintf(out, "<p id=\"what\">");
	if (r->file) {
		hstr(out, r->file);
		fprintf(out, ": ");
	}
	if (r->a)
		fprintf(out, "snapshots %ld to %ld", r->ia, r->ib);
	else
		fprintf(out, "snapshot %ld, counted from the load or clear", r->ib);
	if (b) {
		fmt_time(tb, sizeof(tb), b->time_ns);
		fprintf(out, "<br>device ");
		hstr(out, b->device ? b->device : "?");
		if (b->cpu < 0)
			fprintf(out, " (all CPUs, %u covered)", b->ncpus);
		else
			fprintf(out, " (CPU %d)", b->cpu);
		fprintf(out, " on ");
		hstr(out, !b->host ? "?" : strcmp(b->host, "(none)") ? b->host :
		     "a host with no name set");	/* uname's nodename unset */
		fprintf(out, ", Linux ");
		hstr(out, b->release ? b->release : "?");
		fprintf(out, ", <span id=\"hz\">%u</span> Hz<br>", b->hz);
		if (r->a) {
			fmt_time(ta, sizeof(ta), r->a->time_ns);
			fprintf(out, "from %s to %s: ", ta, tb);
		} else {
			fprintf(out, "at %s: ", tb);
		}
		fprintf(out, "<span id=\"seconds\">%.2f</span> s, sampling on %.2f s", r->seconds,
			r->on_seconds);
		if (report_weight(r)) {
			char buf[128];
			const struct snap_ext *x = b->ext;

			fprintf(out, "<br>source: <span id=\"source\">%s</span>; a sample stands "
				"for <span id=\"weight\">%.0f</span> <span id=\"unit\">%s</span>",
				source_describe(x->source, x->event, x->period, b->hz, buf,
						sizeof(buf)), report_weight(r), report_unit(r));
			if (x->ticks_sampled && x->samples_nmi < x->ticks_sampled)
				fprintf(out, "<br><span id=\"nmi\">%" PRIu64 " of %" PRIu64 " samples in "
					"NMI: code that runs with interrupts off is not seen</span>",
					x->samples_nmi, x->ticks_sampled);
		}
	}
	fprintf(out, "</p>\n<table id=\"summary\"><thead><tr><th class=\"l\">what</th>"
		"<th>samples<br><small>count</small></th><th>share<br><small>%% of all</small></th>"
		"<th class=\"l\">note</th></tr></thead><tbody>\n");
	summary_row(out, "kernel", r->kernel + r->outside, r->all, "kernel functions and outside");
	summary_row(out, "user", r->user, r->all, "");
	summary_row(out, "idle", r->idle, r->all, "");
	summary_row(out, "total", r->all, r->all, "");
	fprintf(out, "<tr><th class=\"l\">lost</th><td>%" PRIu64 "</td><td></td>"
		"<td class=\"l muted\">periods missed by a late timer</td></tr>\n", r->lost);
	fprintf(out, "</tbody></table>\n");
}

/* The report's sentences on re-enable points (irqoff.h), when it has them. */
static void irqoff_html(FILE *out, const struct report *r)
{
	char *moved = irqoff_moved_sentence(r), *line = irqoff_sentence(r);

	if (moved || line) {
		fprintf(out, "<p id=\"irqoff\">");
		hstr(out, moved);
		fprintf(out, "%s", moved && line ? "<br>" : "");
		hstr(out, line);
		fprintf(out, "</p>\n");
	}
	free(moved);
	free(line);
}

int html_read_folded(const char *path, struct html_stack **v, size_t *n,
		     char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, room = 0, lineno = 0;
	ssize_t len;

	*v = NULL;
	*n = 0;
	if (!in) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, in)) > 0) {
		char *sp, *end;
		unsigned long long c;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
			line[--len] = '\0';
		if (!len)
			continue;
		sp = strrchr(line, ' ');
		errno = 0;
		c = sp ? strtoull(sp + 1, &end, 10) : 0;
		if (!sp || sp == line || errno || *end || sp[1] == '-' || !sp[1]) {
			snprintf(err, errlen, "%s:%zu: want 'frame;frame;... count'", path, lineno);
			goto fail;
		}
		*sp = '\0';
		if (*n == room) {
			size_t nr = room ? 2 * room : 64;
			struct html_stack *nv = realloc(*v, nr * sizeof(*nv));

			if (!nv)
				goto nomem;
			*v = nv;
			room = nr;
		}
		(*v)[*n].frames = strdup(line);
		(*v)[*n].count = c;
		if (!(*v)[*n].frames)
			goto nomem;
		(*n)++;
	}
	free(line);
	fclose(in);
	return 0;
nomem:
	snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
fail:
	free(line);
	fclose(in);
	html_free_stacks(*v, *n);
	*v = NULL;
	*n = 0;
	return -1;
}

void html_free_stacks(struct html_stack *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)v[i].frames);
	free(v);
}

int html_write(const char *path, const struct html_input *in, char *err, size_t errlen)
{
	FILE *out = fopen(path, "w");
	const char *of = report_of_name(in->o->of);
	/* the offcpu mode counts time waited, in nanoseconds */
	int waits = report_mode(in->r) == PRF_MODE_OFFCPU;
	const char *what = waits ? "nanoseconds" : "samples";
	/* a count's heading: what, then its unit */
	const char *count = waits ? "waited<br><small>nanoseconds</small>" :
		"samples<br><small>count</small>";
	int bad;

	if (!out) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<title>prf report");
	if (in->r->file) {
		fprintf(out, ": ");
		hstr(out, in->r->file);
	}
	fprintf(out, "</title>\n<style>\n%s</style>\n</head><body>\n<h1>prf report</h1>\n", css);
	summary(out, in);
	fprintf(out, "<h2>Timeline</h2>\n<div id=\"timeline\"></div>\n");
	fprintf(out, "<h2>Flame graph</h2>\n<p class=\"muted\">%s%s  Click a frame to zoom, "
		"again to zoom out.</p>\n<div id=\"flame\"></div>\n",
		waits ? "A flame graph of waits: the time tasks spent off the CPU, in "
		"nanoseconds, where they blocked.  " : "",
		in->stacks ? "Call stacks, outermost frame on top." :
		"No call stacks in the data: module, then function.");
	fprintf(out, "<h2>Functions</h2>\n<p class=\"muted\">%%%s: share of %" PRIu64
		" %s %s.  Click a heading to sort.</p>\n", of,
		report_base(in->r, in->o->of), of, what);
	irqoff_html(out, in->r);
	fprintf(out, "<div class=\"wide\"><table id=\"functions\"><thead><tr>"
		"<th data-key=\"samples\">%s</th>"
		"<th data-key=\"percent\">%%%s<br><small>%% of %s %s</small></th>"
		"<th class=\"l\" data-key=\"name\">function<br><small>name</small></th>"
		"<th class=\"l\" data-key=\"module\">module<br><small>name</small></th>"
		"<th class=\"l\" data-key=\"address\">address<br><small>hex</small></th>"
		"<th class=\"l\">bar<br><small>of the largest</small></th></tr></thead>"
		"<tbody></tbody></table></div>\n", count, of, of, what);
	fprintf(out, "<h2>Modules</h2>\n<table id=\"modules\"><thead><tr>"
		"<th>%s</th><th>%%%s<br><small>%% of %s %s</small></th>"
		"<th class=\"l\">module<br><small>name</small></th></tr></thead><tbody></tbody>"
		"</table>\n", count, of, of, what);
	fprintf(out, "<script type=\"application/json\" id=\"prf-data\">\n");
	data(out, in);
	fprintf(out, "</script>\n<script>\n%s</script>\n</body></html>\n", js);
	bad = ferror(out);
	if (fclose(out) || bad) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
