/* report.html's renderer (rt/cmd/report_html.c embeds this file and the run's data). It draws the page from
 * the data alone: summary.json as written (every key, known or not: the last section shows them all with
 * their help from the key registry), and the series the C side reduced from samples.csv (histograms,
 * latency over time as min/max per column, every miss and explained cycle). Every text from the run
 * reaches the DOM as textContent or an SVG text node, never as markup. No network, no eval. */
"use strict";
(function () {
	const D = JSON.parse(document.getElementById("jl-data").textContent);
	const S = D.summary || {};
	const SVGNS = "http://www.w3.org/2000/svg";
	const page = document.getElementById("page");
	const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
		"#bcbd22", "#7f7f7f"];

	function el(tag, attrs, text) {
		const e = document.createElement(tag);
		for (const k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text !== undefined && text !== null)
			e.textContent = String(text);
		return e;
	}
	function sv(tag, attrs, text) {
		const e = document.createElementNS(SVGNS, tag);
		for (const k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text !== undefined && text !== null)
			e.textContent = String(text);
		return e;
	}
	function add(parent, child) {
		parent.appendChild(child);
		return child;
	}
	function section(title, id) {
		const s = add(page, el("section", { id: id }));
		add(s, el("h2", {}, title));
		return s;
	}
	function none(parent, what) {
		add(parent, el("p", { class: "none" }, what));
	}
	/* a duration in ns, in the unit that reads best */
	function dur(ns) {
		if (ns === null || ns === undefined || typeof ns !== "number")
			return "-";
		const a = Math.abs(ns);
		if (a >= 1e9)
			return (ns / 1e9).toFixed(a >= 1e10 ? 1 : 2) + " s";
		if (a >= 1e6)
			return (ns / 1e6).toFixed(a >= 1e7 ? 1 : 2) + " ms";
		if (a >= 1e3)
			return (ns / 1e3).toFixed(a >= 1e4 ? 0 : 1) + " us";
		return ns.toFixed(0) + " ns";
	}
	function num(v, digits) {
		return typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(digits === undefined ? 2 : digits)) : "-";
	}
	/* a value as the key's name says: *_ns a duration, *_hz a rate, *_bytes a size */
	function val(key, v) {
		if (typeof v === "number") {
			if (/_ns$/.test(key) || key === "ns")
				return dur(v);
			if (/_hz$/.test(key))
				return num(v) + " Hz";
			if (/_bytes$/.test(key))
				return (v / 1e6).toFixed(1) + " MB";
			if (key === "share" || /_fraction$/.test(key))
				return (100 * v).toFixed(1) + "%";
			return num(v);
		}
		if (typeof v === "boolean")
			return v ? "yes" : "no";
		if (v === null)
			return "null";
		return String(v);
	}
	function help(key) {
		const k = (D.keys || {})[key];
		return k ? k.help : "";
	}
	function table(parent, head, rows, cls) {
		const t = add(parent, el("table", cls ? { class: cls } : {}));
		const h = add(add(t, el("thead")), el("tr"));
		head.forEach(x => add(h, el("th", { title: help(x) }, x)));
		const b = add(t, el("tbody"));
		rows.forEach(r => {
			const tr = add(b, el("tr"));
			r.forEach(c => add(tr, el("td", {}, c)));
		});
		return t;
	}
	function color(i) {
		return PALETTE[i % PALETTE.length];
	}
	/* a part kind's colour: from its name, so a kind nobody listed here still gets one */
	function kindColor(kind) {
		const fixed = { task: "#d62728", irq: "#ff7f0e", softirq: "#e6a23c", timer: "#1f77b4", "idle-exit": "#9ecae1",
			other: "#9e9e9e", throttle: "#7b1fa2", unpreempted: "#ad1457", lost: "#424242", running: "#2ca02c",
			blocked: "#8c564b", executor: "#17becf", ipi: "#bcbd22", pool: "#006d77", unexplained: "#cccccc" };
		if (fixed[kind])
			return fixed[kind];
		let h = 0;
		for (const c of String(kind))
			h = (h * 31 + c.charCodeAt(0)) >>> 0;
		return "hsl(" + (h % 360) + ",55%,50%)";
	}

	/* ---- the plots: one SVG each, an axis box, a title, and a table of the same figures beside it ---- */
	function plot(parent, title, w, h) {
		const fig = add(parent, el("figure"));
		const s = add(fig, sv("svg", { viewBox: "0 0 " + w + " " + h, role: "img", "aria-label": title,
			class: "plot" }));
		add(s, sv("title", {}, title));
		add(fig, el("figcaption", {}, title));
		return s;
	}
	function ticks(lo, hi, n) {
		const span = hi - lo || 1, step0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
		const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= step0) || step0;
		const out = [];
		for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step)
			out.push(+v.toPrecision(12));
		return out;
	}
	/* axes for [x0,x1] x [y0,y1] (ylog: y is log10 of the value) in the box; returns the mapping. NOY: the caller
	 * labels the rows itself (no y ticks) */
	function axes(s, box, x0, x1, y0, y1, xlabel, ylabel, ylog, noy) {
		const X = v => box.l + (v - x0) / ((x1 - x0) || 1) * box.w, Y = v => box.t + box.h - (v - y0) / ((y1 - y0) || 1) * box.h;
		add(s, sv("rect", { x: box.l, y: box.t, width: box.w, height: box.h, class: "frame" }));
		ticks(x0, x1, 8).filter(() => xlabel !== "").forEach(v => { /* no x label: the caller names the x axis */
			add(s, sv("line", { x1: X(v), x2: X(v), y1: box.t + box.h, y2: box.t + box.h + 4, class: "tick" }));
			add(s, sv("text", { x: X(v), y: box.t + box.h + 16, class: "tl", "text-anchor": "middle" }, +v.toPrecision(6)));
		});
		(noy ? [] : ylog ? ticks(Math.floor(y0), Math.ceil(y1), Math.min(6, Math.ceil(y1) - Math.floor(y0) || 1)) : ticks(y0, y1, 5))
			.forEach(v => {
				if (v < y0 - 1e-9 || v > y1 + 1e-9)
					return;
				add(s, sv("line", { x1: box.l, x2: box.l + box.w, y1: Y(v), y2: Y(v), class: "grid" }));
				add(s, sv("text", { x: box.l - 6, y: Y(v) + 4, class: "tl", "text-anchor": "end" },
					ylog ? (Math.pow(10, v) >= 1e4 ? "1e" + v : String(Math.round(Math.pow(10, v)))) : +v.toPrecision(6)));
			});
		add(s, sv("text", { x: box.l + box.w / 2, y: box.t + box.h + 34, class: "al", "text-anchor": "middle" }, xlabel));
		add(s, sv("text", { x: 14, y: box.t + box.h / 2, class: "al", "text-anchor": "middle",
			transform: "rotate(-90 14 " + (box.t + box.h / 2) + ")" }, ylabel));
		return { X: X, Y: Y };
	}
	function legend(s, names, x, y) {
		names.forEach((n, i) => {
			add(s, sv("rect", { x: x, y: y + 16 * i - 9, width: 10, height: 10, fill: color(i) }));
			add(s, sv("text", { x: x + 14, y: y + 16 * i, class: "tl" }, n));
		});
	}

	/* ---- the page ---- */
	function header() {
		const h = add(page, el("header"));
		add(h, el("h1", {}, "jitterlab " + (S.kind || "run") + ": " + (S.scenario || "?")));
		add(h, el("p", {}, [S.started || "", "measured " + dur(S.duration_ns), S.tool + " " + (S.version || ""),
			D.dir ? "run directory " + D.dir : ""].filter(x => x).join(" \u00b7 ")));
	}
	function verdict() {
		const s = section("Verdict", "verdict");
		const meaning = D.exit_statuses || {};
		add(s, el("p", { class: S.exit_status ? "bad" : "good" }, "exit " + S.exit_status + ": " +
			(meaning[S.exit_status] || "see summary.json") + (S.interrupted ? " (interrupted)" : "") +
			(S.watchdog_fired ? " (the watchdog demoted threads)" : "")));
		const ex = S.expect || [];
		const mv = (m, v) => typeof v !== "number" ? "-" : /rate_hz$/.test(m || "") ? num(v) + " Hz" :
			/(misses|cycles|skipped|given_up)$/.test(m || "") ? num(v) : dur(v);
		if (ex.length)
			table(s, ["label", "check", "value", "ok"], ex.map(e => [e.label, e.check || "", e.error ? e.error : mv(e.metric, e.value),
				e.ok ? "yes" : "NO"]));
		else
			none(s, "No [expect] in the scenario: nothing was judged.");
		const b = S.budget || [];
		if (b.length)
			table(s, ["stage", "budget", "p99", "margin", "ok"], b.map(x => [x.stage || x.callback || "",
				dur(x.budget_ns), dur(x.p99_ns), dur(x.margin_ns), x.ok ? "yes" : "NO"]));
	}
	function machine() {
		const s = section("Machine", "machine");
		const h = S.host || {};
		const rows = Object.keys(h).filter(k => h[k] === null || typeof h[k] !== "object").map(k => [k, val(k, h[k])]);
		if (rows.length)
			table(s, ["key", "value"], rows, "kv");
		else
			none(s, "summary.json has no host block.");
		if (h.shield && typeof h.shield === "object")
			table(s, ["shield", "value"], Object.keys(h.shield).filter(k => typeof h.shield[k] !== "object")
				.map(k => [k, val(k, h.shield[k])]), "kv");
		const warn = h.warnings || h.doctor || [];
		if (Array.isArray(warn) && warn.length)
			warn.forEach(w => add(s, el("p", { class: "warn" }, typeof w === "string" ? w : (w.text || JSON.stringify(w)))));
	}
	function loops() {
		const s = section("Loops", "loops");
		const th = (S.threads || []).filter(t => t.measured);
		if (!th.length) {
			none(s, "No measured series.");
			return;
		}
		table(s, ["name", "policy", "cpus", "cycles", "rate (Hz)", "misses", "latency p50", "p99", "p99.9", "max",
			"period p99", "response p99"], th.map(t => {
			const l = t.latency_ns || {}, p = t.period_ns_stats || {}, r = t.response_ns || {};
			return [t.name, (t.policy || "") + (t.priority ? " " + t.priority : ""), t.cpus || "", num(t.cycles),
				num(t.rate_hz), num(t.misses), dur(l.p50), dur(l.p99), dur(l.p999), dur(l.max), dur(p.p99), dur(r.p99)];
		}));
		const nb = (S.threads || []).filter(t => !t.measured);
		if (nb.length)
			table(s, ["neighbour", "policy", "cpus", "does", "CPU time"], nb.map(t => [t.name,
				(t.policy || "") + (t.priority ? " " + t.priority : ""), t.cpus || "", t.exec || t.work_kind || "",
				dur(t.cpu_time_ns)]));
	}
	function histogram(s, name, key, what, series) {
		const ser = series || D.series || {}, names = Object.keys(ser).filter(n => ser[n][key] && ser[n][key].bins.length);
		if (!names.length) {
			none(s, "No " + what + " histogram: the run kept no samples (samples.csv).");
			return;
		}
		const w = 900, h = 320, box = { l: 60, t: 14, w: 640, h: 250 };
		let x1 = 0, y1 = 0;
		names.forEach(n => ser[n][key].bins.forEach(b => {
			x1 = Math.max(x1, (b[0] + ser[n][key].width) / 1e3);
			y1 = Math.max(y1, Math.log10(b[1]));
		}));
		/* the count axis starts at 0.5 so that a bin of one cycle stands above it; an empty bin is at the axis */
		const lo = Math.log10(0.5), svg = plot(s, name, w, h);
		const m = axes(svg, box, 0, x1, lo, Math.max(1, y1), what + " (us)", "cycles (log)", true);
		names.forEach((n, i) => {
			const H = ser[n][key], pts = [];
			let end = -1;
			H.bins.forEach(b => {
				if (b[0] !== end) { /* empty bins before this one: down to the axis and back */
					if (end >= 0)
						pts.push(m.X(end / 1e3) + "," + m.Y(lo));
					pts.push(m.X(b[0] / 1e3) + "," + m.Y(lo));
				}
				pts.push(m.X(b[0] / 1e3) + "," + m.Y(Math.log10(b[1])));
				pts.push(m.X((b[0] + H.width) / 1e3) + "," + m.Y(Math.log10(b[1])));
				end = b[0] + H.width;
			});
			pts.push(m.X(end / 1e3) + "," + m.Y(lo));
			add(svg, sv("polyline", { points: pts.join(" "), fill: "none", stroke: color(i), "stroke-width": 1.5 }));
		});
		legend(svg, names, box.l + box.w + 20, box.t + 10);
		keptOnly(s);
	}
	/* samples = worst: samples.csv holds the worst windows' cycles only; the plots draw what it holds */
	function keptOnly(s) {
		if ((S.samples || {}).mode === "worst")
			add(s, el("p", { class: "warn" }, "samples = worst: only the kept cycles (the worst windows) are drawn; " +
				"the tables' figures are from every cycle."));
	}
	function overTime(s, series) {
		const ser = series || D.series || {}, names = Object.keys(ser).filter(n => ser[n].time && ser[n].time.x.length);
		if (!names.length) {
			none(s, "No latency over time: the run kept no samples (samples.csv).");
			return;
		}
		const w = 900, h = 340, box = { l: 60, t: 14, w: 640, h: 270 };
		let x1 = 0, y1 = 1;
		names.forEach(n => {
			const T = ser[n].time;
			x1 = Math.max(x1, T.x[T.x.length - 1]);
			T.max.forEach(v => y1 = Math.max(y1, Math.log10(Math.max(v, 1) / 1e3)));
			(ser[n].misses || []).forEach(p => y1 = Math.max(y1, Math.log10(Math.max(p[1], 1) / 1e3)));
		});
		const svg = plot(s, "latency over time (each column's min and max; red: missed deadlines, black: explained cycles)", w, h);
		const lo = 0, m = axes(svg, box, 0, x1, lo, y1, "time since the measured phase began (s)", "latency (us, log)", true);
		const L = v => Math.max(lo, Math.log10(Math.max(v, 1) / 1e3));
		names.forEach((n, i) => {
			const T = ser[n].time;
			let d = "";
			T.x.forEach((x, j) => d += "M" + m.X(x).toFixed(1) + "," + m.Y(L(T.min[j])).toFixed(1) + "V" + m.Y(L(T.max[j])).toFixed(1));
			add(svg, sv("path", { d: d, stroke: color(i), "stroke-width": 1.2, fill: "none" }));
			(ser[n].misses || []).forEach(p => add(svg, sv("circle", { cx: m.X(p[0]), cy: m.Y(L(p[1])), r: 2.2, class: "miss" })));
			(ser[n].explained || []).forEach(p => {
				const g = add(svg, sv("path", { d: "M" + m.X(p[0]) + "," + (m.Y(L(p[1])) - 5) + "l4,5l-4,5l-4,-5z", class: "expl" }));
				add(g, sv("title", {}, n + " cycle " + p[2] + ": " + dur(p[1])));
			});
		});
		legend(svg, names, box.l + box.w + 20, box.t + 10);
		/* with samples = worst the rows are the kept ones: the misses of every cycle are the summary's */
		const kept = !series && (S.samples || {}).mode === "worst";
		const missed = n => {
			const t = kept ? (S.threads || []).find(x => x.name === n) : null;
			return t && typeof t.misses === "number" ? t.misses : (ser[n].misses_total || 0);
		};
		const mc = names.reduce((a, n) => a + missed(n), 0);
		add(s, el("p", {}, names.map(n => n + ": " + (ser[n].time.cycles || 0) + (kept ? " kept" : "") + " cycles in " +
			ser[n].time.x.length + " columns, " + missed(n) + " missed" + ((ser[n].misses || []).length < missed(n) ?
			" (" + ser[n].misses.length + " marked)" : "")).join("; ") + (mc ? "" : "; no missed deadline")));
		if (!series)
			keptOnly(s);
	}
	/* one explained cycle: its parts end to end on a time axis from its release, each labelled */
	function cycleBar(s, c, dir) {
		const fig = add(s, el("div", { class: "cycle" }));
		add(fig, el("h3", {}, c.thread + " cycle " + c.cycle + (c.miss ? " (missed its deadline)" : "") + ": " +
			(c.window === "response" ? "response " + dur(c.response_ns) : dur(c.latency_ns))));
		/* in time order as far as the parts say it: the wait's parts as ranked, a response's own work last */
		const parts = (c.parts || []).filter(p => p.duration_ns > 0 && p.kind !== "running")
			.concat((c.parts || []).filter(p => p.duration_ns > 0 && p.kind === "running"));
		const total = parts.reduce((a, p) => a + p.duration_ns, 0);
		if (!total) {
			none(fig, "No part with a duration: " + (c.text || ""));
			return;
		}
		const w = 900, rowh = 34, h = rowh + 24 + 18 * parts.length, box = { l: 20, t: 12, w: 860 };
		const svg = add(fig, sv("svg", { viewBox: "0 0 " + w + " " + h, role: "img", class: "plot",
			"aria-label": c.text || "" }));
		add(svg, sv("title", {}, c.text || ""));
		let x = 0;
		parts.forEach((p, i) => {
			const x0 = box.l + x / total * box.w, pw = Math.max(1, p.duration_ns / total * box.w);
			const r = add(svg, sv("rect", { x: x0, y: box.t, width: pw, height: rowh, fill: kindColor(p.kind), class: "part" }));
			add(r, sv("title", {}, p.kind + ": " + p.name + " " + dur(p.duration_ns)));
			if (pw > 60)
				add(svg, sv("text", { x: x0 + 4, y: box.t + 21, class: "pl" }, dur(p.duration_ns)));
			x += p.duration_ns;
			add(svg, sv("rect", { x: box.l, y: box.t + rowh + 12 + 18 * i, width: 10, height: 10, fill: kindColor(p.kind) }));
			add(svg, sv("text", { x: box.l + 16, y: box.t + rowh + 21 + 18 * i, class: "tl" },
				p.kind + " \u00b7 " + p.name + (p.policy ? " (" + p.policy + ")" : "") + " \u00b7 " + dur(p.duration_ns) +
				" (" + (100 * p.duration_ns / total).toFixed(0) + "%)"));
		});
		add(svg, sv("text", { x: box.l, y: box.t - 1, class: "tl" }, "release"));
		add(svg, sv("text", { x: box.l + box.w, y: box.t - 1, class: "tl", "text-anchor": "end" },
			c.window === "response" ? "end" : "wake"));
		if (c.advice)
			add(fig, el("p", { class: "advice" }, "advice: " + c.advice));
		if (c.kernelshark)
			add(fig, el("p", {}, "open it in KernelShark: ")).appendChild(el("code", {}, "kernelshark -s " +
				((dir || D.dir) ? (dir || D.dir) + "/" : "") + c.kernelshark));
	}
	function explained() {
		const s = section("Explained cycles", "cycles");
		const tr = S.trace;
		if (!tr || !tr.worst) {
			none(s, tr ? "The trace explained no cycle." : "The run was not traced: no cycle is explained ([run] trace).");
			return;
		}
		if (!tr.worst.length)
			none(s, "The trace explained no cycle.");
		tr.worst.forEach(c => cycleBar(s, c));
	}
	function tails() {
		const s = section("What each loop's latency tail is made of", "tail");
		const t = (S.trace || {}).tail || {};
		const names = Object.keys(t);
		if (!names.length) {
			none(s, "No tail: the run was not traced, or has no loop.");
			return;
		}
		names.forEach(n => {
			const x = t[n];
			add(s, el("h3", {}, n));
			if (!x.computed) {
				none(s, "Not counted: " + (x.why || ""));
				return;
			}
			add(s, el("p", {}, x.cycles + " tail cycles of " + x.measured_cycles + ": " + x.above + " above " +
				dur(x.threshold_ns) + " (" + (x.threshold_from === "tail" ? "[run] tail" : "p99") + "'s bucket), " +
				x.misses + " missed; " + dur(x.excess.total_ns) + " over p50 (" + dur(x.p50_ns) + ") in all."));
			[["excess", "their latency over p50"], ["response", "the misses' responses"]].forEach(tb => {
				const tab = x[tb[0]];
				if (!tab || !tab.causes.length)
					return;
				add(s, el("h4", {}, tb[1]));
				const w = 900, svg = add(s, sv("svg", { viewBox: "0 0 " + w + " 30", class: "plot", role: "img",
					"aria-label": tb[1] }));
				let acc = 0;
				tab.causes.forEach(c => {
					const r = add(svg, sv("rect", { x: 20 + acc * 860, y: 4, width: Math.max(0, c.share * 860), height: 22,
						fill: kindColor(c.kind), class: "part" }));
					add(r, sv("title", {}, c.cause + " " + (100 * c.share).toFixed(0) + "%"));
					acc += c.share;
				});
				table(s, ["cause", "kind", "time", "share", "largest in"], tab.causes.map(c => [c.cause, c.kind, dur(c.ns),
					(100 * c.share).toFixed(1) + "%", num(c.largest_in)]));
			});
		});
		const oc = (S.trace || {}).off_cpu;
		if (oc && Object.keys(oc).length) {
			add(s, el("h3", {}, "Where each measured thread's time went (off-CPU states)"));
			Object.keys(oc).forEach(n => {
				const o = oc[n];
				table(s, [n, "value"], Object.keys(o).filter(k => typeof o[k] !== "object").map(k => [k, val(k, o[k])]), "kv");
			});
		}
	}
	/* every key of summary.json, known or not, with its help from the registry */
	function tree(parent, key, v, depth) {
		if (v !== null && typeof v === "object") {
			const d = add(parent, el("details", depth < 1 ? { open: "" } : {}));
			const sm = add(d, el("summary", { title: help(key) }, key + (Array.isArray(v) ? " [" + v.length + "]" : "")));
			sm.dataset.key = key;
			const keys = Array.isArray(v) ? v.map((_, i) => i).slice(0, 200) : Object.keys(v);
			keys.forEach(k => tree(d, Array.isArray(v) ? key + "[" + k + "]" : k, v[k], depth + 1));
			if (Array.isArray(v) && v.length > 200)
				add(d, el("p", { class: "none" }, (v.length - 200) + " more in summary.json"));
			return;
		}
		const p = add(parent, el("div", { class: "leaf", title: help(key) }));
		add(p, el("span", { class: "k" }, key + ": "));
		add(p, el("span", { class: "v" }, val(key, v)));
	}
	function everything() {
		const s = section("Everything summary.json holds", "all");
		add(s, el("p", {}, "Every key, as written (hover a key for its meaning: docs/summary-keys.md)."));
		Object.keys(S).forEach(k => tree(s, k, S[k], 0));
	}

	/* ---- a watch: the spikes on the wall clock, one row per watched thread ---- */
	/* the time of day (UTC) of T s into series SER: from the wall clock at t0, else (an older run) from
	 * `started`, which is whole seconds and a little before t0 */
	function clock(ser, t) {
		const st = typeof S.t0_realtime_ns === "number" ? S.t0_realtime_ns / 1e6 : Date.parse(S.started || "");
		if (isNaN(st) || typeof ser.t0_ns !== "number" || typeof S.t0_ns !== "number")
			return "+" + t.toFixed(3) + " s";
		return new Date(st + (ser.t0_ns - S.t0_ns) / 1e6 + t * 1e3).toISOString().slice(11, 23);
	}
	function spikes() {
		const s = section("Spikes over the watch", "spikes");
		const ser = D.series || {}, names = Object.keys(ser).filter(n => ser[n].time && ser[n].time.x.length);
		if (!names.length) {
			none(s, "No spike: no watched thread ran (samples.csv has no row).");
			return;
		}
		if (!names.some(n => (ser[n].spikes || []).length)) {
			none(s, "No spike: summary.json gives no p99 to measure the watched threads' cycles against.");
			return;
		}
		add(s, el("p", {}, "Each watched thread's cycles (those samples.csv holds) at or above its own p99, the " +
			"largest 2,000 of each drawn, on the wall clock (UTC); red: missed deadlines, black: explained cycles. " +
			"A mark's height is its latency (log)."));
		const rowh = 46, w = 900, box = { l: 170, t: 10, w: 700, h: rowh * names.length };
		let x1 = 0, y1 = 1;
		names.forEach(n => {
			const T = ser[n].time;
			x1 = Math.max(x1, typeof ser[n].span_s === "number" ? ser[n].span_s : T.x[T.x.length - 1]);
			T.max.forEach(v => y1 = Math.max(y1, Math.log10(Math.max(v, 1) / 1e3)));
		});
		const svg = plot(s, "spikes on the wall clock, one row per watched thread", w, box.t + box.h + 40);
		const X = t => box.l + t / (x1 || 1) * box.w;
		add(svg, sv("rect", { x: box.l, y: box.t, width: box.w, height: box.h, class: "frame" }));
		ticks(0, x1, 6).forEach(t => {
			add(svg, sv("line", { x1: X(t), x2: X(t), y1: box.t + box.h, y2: box.t + box.h + 4, class: "tick" }));
			add(svg, sv("text", { x: X(t), y: box.t + box.h + 16, class: "tl", "text-anchor": "middle" },
				clock(ser[names[0]], t).slice(0, 8)));
		});
		add(svg, sv("text", { x: box.l + box.w / 2, y: box.t + box.h + 34, class: "al", "text-anchor": "middle" },
			"time of day (UTC)"));
		const all = [];
		names.forEach((n, i) => {
			const base = box.t + rowh * (i + 1) - 4, H = v => Math.max(1, Math.log10(Math.max(v, 1) / 1e3) / y1 * (rowh - 10));
			add(svg, sv("line", { x1: box.l, x2: box.l + box.w, y1: base, y2: base, class: "grid" }));
			add(svg, sv("text", { x: box.l - 6, y: base - rowh / 2 + 8, class: "tl", "text-anchor": "end" },
				n.length > 26 ? n.slice(0, 25) + "\u2026" : n));
			(ser[n].spikes || []).forEach(p => {
				const l = add(svg, sv("line", { x1: X(p[0]), x2: X(p[0]), y1: base, y2: base - H(p[1]), stroke: color(i),
					"stroke-width": 1.2 }));
				add(l, sv("title", {}, n + " " + clock(ser[n], p[0]) + " cycle " + p[2] + ": " + dur(p[1])));
				all.push([n, p]);
			});
			(ser[n].misses || []).forEach(p => add(svg, sv("circle", { cx: X(p[0]), cy: base - H(p[1]), r: 2.2, class: "miss" })));
			(ser[n].explained || []).forEach(p => {
				const g = add(svg, sv("path", { d: "M" + X(p[0]) + "," + (base - H(p[1]) - 5) + "l4,5l-4,5l-4,-5z", class: "expl" }));
				add(g, sv("title", {}, n + " " + clock(ser[n], p[0]) + " cycle " + p[2] + ": " + dur(p[1]) + " (explained)"));
			});
		});
		add(s, el("p", {}, names.map(n => n + ": " + num(ser[n].spikes_total || 0) + " cycles at or above " +
			dur(ser[n].spike_from_ns)).join("; ")));
		all.sort((a, b) => b[1][1] - a[1][1]);
		if (all.length)
			table(s, ["when (UTC)", "thread", "cycle", "latency", "explained"], all.slice(0, 20).map(x => [clock(ser[x[0]], x[1][0]),
				x[0], num(x[1][2]), dur(x[1][1]), (ser[x[0]].explained || []).some(e => e[2] === x[1][2]) ? "yes" : ""]));
	}

	/* ---- several runs on one page (report --html --out): side by side ---- */
	function runsPage() {
		const R = D.runs || [], label = (r, i) => "run " + (i + 1);
		const h = add(page, el("header"));
		add(h, el("h1", {}, "jitterlab: " + R.length + " runs side by side"));
		const s = section("The runs", "runs");
		table(s, ["run", "scenario", "started", "measured", "exit", "directory"], R.map((r, i) => {
			const m = r.summary || {};
			return [label(r, i), m.scenario || "?", m.started || "", dur(m.duration_ns), num(m.exit_status), r.dir || ""];
		}));
		const rows = [];
		R.forEach((r, i) => ((r.summary || {}).threads || []).filter(t => t.measured).forEach(t => {
			const l = t.latency_ns || {};
			rows.push([label(r, i), t.name, num(t.cycles), num(t.rate_hz), num(t.misses), dur(l.p50), dur(l.p99), dur(l.p999),
				dur(l.max)]);
		}));
		const ls = section("Loops", "loops");
		if (rows.length)
			table(ls, ["run", "name", "cycles", "rate (Hz)", "misses", "latency p50", "p99", "p99.9", "max"], rows);
		else
			none(ls, "No measured series in any run.");
		const merged = {};
		R.forEach((r, i) => Object.keys(r.series || {}).forEach(n => merged[label(r, i) + ": " + n] = r.series[n]));
		const p = section("Latency", "plots");
		histogram(p, "latency histogram (cycles per bin, log scale; one curve per run and series)", "hist", "latency", merged);
		overTime(p, merged);
		const e = section("Explained cycles", "cycles");
		R.forEach((r, i) => {
			const w = ((r.summary || {}).trace || {}).worst;
			add(e, el("h3", {}, label(r, i) + ": " + ((r.summary || {}).scenario || "")));
			if (!Array.isArray(w) || !w.length)
				none(e, "No explained cycle in this run.");
			else
				w.forEach(c => cycleBar(e, c, r.dir));
		});
	}

	/* ---- a comparison: compare.json (baseline against new, each gate's verdict) ---- */
	function gates(s, C) {
		const g = C.gates || [];
		add(s, el("p", { class: C.gates_failed ? "bad" : "good" }, g.length ? (C.gates_failed ? C.gates_failed + " of " + g.length +
			" gate(s) failed" : "every gate (" + g.length + ") passed") : "No gate: the scenario has no [gate] and none was given."));
		if (g.length)
			table(s, ["gate", "check", "condition", "allowance", "status", "why"], g.map(x => [x.label, x.check, x.condition,
				x.allowance, String(x.status || "").toUpperCase(), x.text]));
	}
	/* one condition's changes: each metric's change relative to the baseline's mean, its 95% CI as a bar */
	function forest(s, c) {
		const ms = (c.metrics || []).filter(m => typeof m.change_relative === "number");
		if (!ms.length) {
			none(s, "No metric with a value on both sides.");
			return;
		}
		const rel = (m, v) => v / Math.abs(m.mean_baseline || 1);
		let lo = 0, hi = 0;
		ms.forEach(m => {
			const ci = (m.ci95 || []).filter(v => typeof v === "number").map(v => rel(m, v));
			[m.change_relative].concat(ci).forEach(v => { lo = Math.min(lo, v); hi = Math.max(hi, v); });
		});
		lo = Math.max(lo, -2);
		hi = Math.min(hi, 2);
		const rowh = 18, w = 900, box = { l: 230, t: 10, w: 560, h: rowh * ms.length };
		const svg = plot(s, "change of each metric, new against baseline (relative to the baseline's mean; the bar is the 95% CI)",
			w, box.t + box.h + 44);
		const m = axes(svg, box, lo * 100, hi * 100, 0, ms.length, "change (%" + (lo <= -2 || hi >= 2 ?
			", clipped at \u00b1200%)" : ")"), "", false, true);
		add(svg, sv("line", { x1: m.X(0), x2: m.X(0), y1: box.t, y2: box.t + box.h, stroke: "#000" }));
		const cl = v => v === "regressed" ? "#c00" : v === "improved" ? "#060" : v === "changed" ? "#8a5a00" : "#555";
		const X = v => m.X(100 * Math.max(lo, Math.min(hi, v)));
		ms.forEach((x, i) => {
			const y = box.t + rowh * i + rowh / 2;
			add(svg, sv("text", { x: box.l - 6, y: y + 4, class: "tl", "text-anchor": "end" }, x.series + "." + x.metric));
			if ((x.ci95 || []).every(v => typeof v === "number"))
				add(svg, sv("line", { x1: X(rel(x, x.ci95[0])), x2: X(rel(x, x.ci95[1])), y1: y, y2: y, stroke: cl(x.verdict),
					"stroke-width": 3 }));
			const d = add(svg, sv("circle", { cx: X(x.change_relative), cy: y, r: 4, fill: cl(x.verdict) }));
			add(d, sv("title", {}, x.text || ""));
			add(svg, sv("text", { x: box.l + box.w + 6, y: y + 4, class: "tl" }, x.verdict));
		});
	}
	function compareSections(C) {
		const g = section("Gates", "gates");
		gates(g, C);
		const hd = section("Machines", "hosts");
		const sides = [["baseline", C.baseline || {}], ["new", C.new || {}]];
		table(hd, ["side", "path", "kind", "runs", "kernel", "preempt"], sides.map(x => [x[0], x[1].path, x[1].kind, num(x[1].runs),
			(x[1].host || {}).kernel || "", (x[1].host || {}).preempt || ""]));
		if ((C.host_differences || []).length)
			table(hd, ["differs", "baseline", "new", "why"], C.host_differences.map(x => [x.key + (x.doubtful ? " (doubtful)" : ""),
				val(x.key, x.baseline), val(x.key, x.new), x.text]));
		else
			add(hd, el("p", {}, "The two sides' machines agree on every fingerprint key."));
		(C.conditions || []).forEach((c, k) => {
			const s = section("Condition " + c.new_label + " (" + c.runs_baseline + " baseline runs, " + c.runs_new +
				" new)", "cond-" + k);
			add(s, el("p", {}, c.compared + " metric(s) compared, " + c.differ + " differ at p < 0.05"));
			forest(s, c);
			const v = (m, x) => typeof x !== "number" ? "-" : m.unit === "ns" ? dur(x) : m.unit === "Hz" ? num(x) + " Hz" :
				m.unit === "fraction" ? (100 * x).toFixed(1) + "%" : num(x);
			table(s, ["series", "metric", "baseline (each run)", "new (each run)", "mean baseline", "mean new", "change",
				"95% CI", "p", "verdict"], (c.metrics || []).map(m => [m.series, m.metric,
				(m.values_baseline || []).map(x => v(m, x)).join(", "), (m.values_new || []).map(x => v(m, x)).join(", "),
				v(m, m.mean_baseline), v(m, m.mean_new), v(m, m.change), (m.ci95 || []).map(x => v(m, x)).join(" \u2013 "),
				typeof m.p === "number" ? (m.p < 0.001 ? "< 0.001" : m.p.toFixed(3)) : "-", m.verdict]));
			if ((c.budget || []).length)
				table(s, ["stage", "budget", "p99 change", "max change"], c.budget.map(b => [b.stage, dur(b.budget_ns),
					(b.p99 || {}).text || "", (b.max || {}).text || ""]));
		});
		if ((C.only_in_baseline || []).length || (C.only_in_new || []).length)
			add(section("Series on one side only", "only"), el("p", {}, "baseline only: " +
				((C.only_in_baseline || []).join(", ") || "none") + "; new only: " + ((C.only_in_new || []).join(", ") || "none")));
	}
	function comparePage() {
		const C = D.compare || {};
		const h = add(page, el("header"));
		add(h, el("h1", {}, "jitterlab compare: " + (C.scenario || "?")));
		add(h, el("p", {}, "baseline " + ((C.baseline || {}).path || "?") + " against new " + ((C.new || {}).path || "?") +
			" \u00b7 confidence " + num(C.confidence) + " \u00b7 a verdict needs " + num(C.min_runs) + " runs a side"));
		compareSections(C);
		const all = section("Everything compare.json holds", "all");
		Object.keys(C).forEach(k => tree(all, k, C[k], 0));
	}

	/* ---- a sweep's page: sweep.json ---- */
	const W = D.sweep || {};
	function unitOf(metric) {
		const m = (W.metrics || []).find(x => x.name === metric);
		return m ? m.unit : "";
	}
	function mval(metric, v) {
		const u = unitOf(metric);
		return typeof v !== "number" ? "-" : u === "ns" ? dur(v) : u === "Hz" ? num(v) + " Hz" : num(v);
	}
	function sweepHeader() {
		const h = add(page, el("header"));
		add(h, el("h1", {}, "jitterlab sweep: " + (W.scenario || "?")));
		const des = W.design || {};
		add(h, el("p", {}, [W.started || "", W.runs_done + " runs, " + W.runs_per_condition + " per condition" +
			(W.interrupted ? " (interrupted)" : ""), des.order ? "order " + des.order + (des.seed ? ", seed " + des.seed : "") : "",
			D.dir ? "directory " + D.dir : ""].filter(x => x).join(" \u00b7 ")));
	}
	function sweepOverview(tn) {
		const s = section(tn + ": every condition (mean over runs, CV)", "overview-" + tn);
		const heads = ["rate_hz", "latency.p99", "latency.max", "period.max", "misses"];
		table(s, ["condition", "n"].concat(heads), (W.conditions || []).map(c => {
			const st = (c.stats || {})[tn] || {};
			return [c.label, num((st.rate_hz || {}).n)].concat(heads.map(m => {
				const x = st[m] || {};
				return x.n ? mval(m, x.mean) + " (" + (100 * (x.cv || 0)).toFixed(0) + "%)" + (x.bimodal ? " bimodal" : "") : "-";
			}));
		}));
		return s;
	}
	/* one metric: each condition's runs as points, the mean as a bar (a strip plot) */
	function strip(s, tn, metric) {
		const conds = W.conditions || [];
		const vals = conds.map(c => (((c.stats || {})[tn] || {})[metric] || {}).values || []);
		const all = [].concat(...vals).filter(v => typeof v === "number");
		if (!all.length) {
			none(s, metric + ": no run gave a value.");
			return;
		}
		const log = unitOf(metric) === "ns" && Math.min(...all) > 0;
		const f = v => log ? Math.log10(v / 1e3) : (unitOf(metric) === "ns" ? v / 1e3 : v);
		let y0 = Math.min(...all.map(f)), y1 = Math.max(...all.map(f));
		if (y1 - y0 < 1e-9) {
			y0 -= 1;
			y1 += 1;
		}
		const w = 900, h = 300, box = { l: 60, t: 14, w: 820, h: 200 };
		const svg = plot(s, tn + " " + metric + ": each run (points) and the mean (bar), per condition", w, h);
		const m = axes(svg, box, -0.5, conds.length - 0.5, y0, y1, "", metric + (unitOf(metric) === "ns" ? " (us" +
			(log ? ", log)" : ")") : unitOf(metric) ? " (" + unitOf(metric) + ")" : ""), log);
		conds.forEach((c, i) => {
			const x = m.X(i);
			add(svg, sv("text", { x: x, y: box.t + box.h + 30, class: "tl", "text-anchor": "end",
				transform: "rotate(-35 " + x + " " + (box.t + box.h + 30) + ")" }, c.label));
			const v = vals[i].filter(u => typeof u === "number");
			v.forEach((u, k) => add(svg, sv("circle", { cx: x + (k - (v.length - 1) / 2) * 5, cy: m.Y(f(u)), r: 3,
				fill: color(0), "fill-opacity": 0.75 })));
			if (v.length) {
				const mean = v.reduce((a, b) => a + b, 0) / v.length;
				add(svg, sv("line", { x1: x - 14, x2: x + 14, y1: m.Y(f(mean)), y2: m.Y(f(mean)), stroke: "#000",
					"stroke-width": 2 }));
			}
		});
	}
	function sweepEffects(tn) {
		const s = section(tn + ": factor effects", "effects-" + tn);
		const fx = (W.effects || []).filter(e => e.thread === tn);
		if (!fx.length) {
			none(s, "No factor effects: the sweep's conditions do not cross factors, or it is not finished.");
			return;
		}
		const rows = [];
		fx.forEach(e => {
			if (e.status !== "ok") {
				rows.push([e.metric, e.model || "", e.status + (e.why ? ": " + e.why : ""), "", "", ""]);
				return;
			}
			(e.terms || []).filter(t => t.kind !== "simple").forEach(t => {
				const what = t.factor + " " + t.reference + " \u2192 " + t.level + (t.kind === "interaction" ? " \u00d7 " +
					t.factor2 + " " + t.reference2 + " \u2192 " + t.level2 : "");
				const est = e.scale === "difference" ? (t.estimate >= 0 ? "+" : "") + num(t.estimate) :
					"\u00d7 " + num(t.estimate, 3);
				const ci = (t.ci || []).map(v => num(v, 3)).join(" \u2013 ");
				const p = typeof t.p_holm === "number" ? t.p_holm : t.p;
				rows.push([e.metric, t.kind, what, est, ci, typeof p === "number" ? (p < 0.001 ? "< 0.001" : p.toFixed(3)) : "-"]);
			});
		});
		table(s, ["metric", "term", "effect", "estimate", "95% CI", "p (Holm)"], rows);
	}
	function sweepTails(tn) {
		const s = section(tn + ": what the latency tail is made of (each condition's runs pooled)", "tails-" + tn);
		const conds = (W.conditions || []).filter(c => (c.tail || {})[tn]);
		if (!conds.length) {
			none(s, "No tails: the runs were not traced.");
			return;
		}
		table(s, ["condition", "tail cycles", "above", "missed", "over p50", "largest causes"], conds.map(c => {
			const t = c.tail[tn], causes = ((t.excess || {}).causes || []).slice(0, 3);
			return [c.label, num(t.cycles) + " of " + num(t.measured_cycles), num(t.above), num(t.misses),
				dur((t.excess || {}).total_ns), causes.map(x => x.cause + " " + (100 * x.share).toFixed(0) + "%").join(", ")];
		}));
	}
	function sweepVerdicts() {
		const s = section("Pairwise verdicts (Welch, 95%)", "verdicts");
		const cmp = W.comparisons || [];
		if (!cmp.length)
			none(s, "No pair compared.");
		else
			table(s, ["series", "metric", "pair", "verdict"], cmp.map(c => [c.thread, c.metric, c.b + " vs " + c.a, c.verdict || ""]));
		(W.flags || []).forEach(f => add(s, el("p", { class: "warn" }, f.text || "")));
	}
	function sweepPage() {
		sweepHeader();
		(W.threads || []).forEach(tn => {
			const s = sweepOverview(tn);
			(W.metrics || []).forEach(m => strip(s, tn, m.name));
			sweepEffects(tn);
			sweepTails(tn);
		});
		if (!(W.threads || []).length)
			none(section("Series", "series"), "No measured series in any usable run: nothing to compare.");
		sweepVerdicts();
		if (D.compare) {
			add(page, el("h2", {}, "Against the baseline " + ((D.compare.baseline || {}).path || "")));
			compareSections(D.compare);
		}
		const all = section("Everything sweep.json holds", "all");
		Object.keys(W).forEach(k => tree(all, k, W[k], 0));
	}

	/* a section that fails on data it did not expect (a hand-edited file) says so and the page goes on */
	function guarded(name, f) {
		try {
			f();
		} catch (e) {
			add(page, el("p", { class: "bad" }, "The " + name + " section could not be drawn from this data: " + e.message));
		}
	}
	if (D.kind === "sweep") {
		guarded("sweep", sweepPage);
	} else if (D.kind === "compare") {
		guarded("comparison", comparePage);
	} else if (D.kind === "runs") {
		guarded("runs", runsPage);
	} else {
		guarded("header", header);
		guarded("verdict", verdict);
		guarded("machine", machine);
		guarded("loops", loops);
		if (S.kind === "watch")
			guarded("spikes", spikes);
		guarded("latency", () => {
			const p = section("Latency", "plots");
			histogram(p, "latency histogram (cycles per bin, log scale; OSADL style, one curve per series)", "hist", "latency");
			overTime(p);
			histogram(p, "period distribution (cycles per bin, log scale)", "period", "period");
		});
		guarded("explained cycles", explained);
		guarded("tail", tails);
		guarded("summary", everything);
	}
	document.body.dataset.rendered = "yes";
	document.body.dataset.renderMs = String(Math.round(performance.now())); /* since navigation began: make bench */
})();
