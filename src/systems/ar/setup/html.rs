//! The setup report (`setup analyse --html`) as one self-contained HTML page for a game
//! designer: how the nights were chosen, the share of paradox, quasi-paradox and
//! non-paradox nights, expected deaths, each role's and player's chance of dying, each
//! action's chance of failing, the paradox causes with their example nights (each with a
//! playground link and a `.night` download) and the nights that could not be solved.
//!
//! It reads only the JSON report ([`super::report::to_json`]), never the tally, so the
//! page of a merged report is the page of the whole run.
//!
//! Invariants:
//! * self-contained: inline CSS and inline SVG, no script, and no outside request of any
//!   kind (no external font, image, style or script; a Content-Security-Policy forbids
//!   them, and the icon is an empty `data:` URI). The only addresses in the page are the
//!   links a reader follows: the playground (`playground`, as given) with the night in
//!   the fragment, and `data:` downloads;
//! * every text taken from the report (file names, roles, players, nights, errors) is
//!   escaped before it goes into the page ([`escape`]), in text and in attributes alike;
//! * a missing or `null` number is shown as `-`, never guessed.

use serde_json::Value;
use std::fmt::Write as _;

/// The page for the JSON report `report` (`report::to_json`), its example links opening
/// `playground`.
pub fn page(report: &Value, playground: &str) -> String {
    let setup = text(&report["setup"]);
    let name = setup.rsplit(['/', '\\']).next().unwrap_or(setup);
    let mut o = String::new();
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    o.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    o.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n",
    );
    o.push_str("<meta name=\"generator\" content=\"gordian setup analyse\">\n");
    o.push_str("<link rel=\"icon\" href=\"data:,\">\n");
    let _ = writeln!(
        o,
        "<title>{} \u{2014} gordian setup report</title>",
        escape(name)
    );
    let _ = writeln!(o, "<style>{STYLE}</style>\n</head>\n<body>\n<main>");
    let _ = writeln!(
        o,
        "<h1>Setup report: <span class=\"setup-name\">{}</span></h1>",
        escape(name)
    );
    let _ = writeln!(o, "<p class=\"file\"><code>{}</code></p>", escape(setup));
    summary(&mut o, report);
    classes(&mut o, report);
    deaths(&mut o, report);
    actions(&mut o, report);
    causes(&mut o, report, playground);
    failed(&mut o, report);
    o.push_str(
        "</main>\n<footer><p>Written by <code>gordian setup analyse --html</code>. This page \
         is self-contained: it loads nothing from anywhere. Its only links are the examples' \
         (the playground, with the night in the address's <code>#</code> part, which the \
         browser keeps to itself, and the downloads).</p></footer>\n</body>\n</html>\n",
    );
    o
}

const STYLE: &str = "
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --bg: #ffffff;
  --panel: #f4f6f8; --line: #d0d7de; --grid: #e3e7eb; --link: #0b57d0;
  --paradox: #c62828; --quasi: #ef9f00; --non: #2e7d32; --role: #3f63b5; --whisker: #1b1f24; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e9ed; --muted: #9aa4af; --bg: #15181c; --panel: #1f242a; --line: #3a424b;
    --grid: #2b3137; --link: #8ab4f8; --paradox: #ef5350; --quasi: #ffb300; --non: #66bb6a;
    --role: #7f9cf5; --whisker: #e6e9ed; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; }
main, footer { max-width: 60rem; margin: 0 auto; padding: 0 1.25rem; }
h1 { font-size: 1.6rem; margin: 1.5rem 0 0.2rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.5rem; border-bottom: 1px solid var(--line); padding-bottom: 0.2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 0.3rem; }
p.file { margin: 0; color: var(--muted); }
.muted, .note { color: var(--muted); }
.note { font-size: 0.9rem; }
a { color: var(--link); }
code, pre { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'Liberation Mono', monospace; font-size: 0.9em; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem 0.8rem; overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { text-align: left; padding: 0.25rem 0.9rem 0.25rem 0; border-bottom: 1px solid var(--grid); vertical-align: top; }
th { font-weight: 600; border-bottom-color: var(--line); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.big { font-size: 1.6rem; font-weight: 600; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 0.5rem 0; }
svg.chart text { fill: var(--fg); font-size: 13px; font-family: inherit; }
svg.chart text.tick { fill: var(--muted); font-size: 11px; }
svg.chart line.grid { stroke: var(--grid); stroke-width: 1; }
svg.chart line.axis { stroke: var(--line); stroke-width: 1; }
svg.chart line.whisker { stroke: var(--whisker); stroke-width: 1.5; }
rect.bar { fill: var(--role); }
rect.bar.paradox { fill: var(--paradox); }
rect.bar.quasi_paradox { fill: var(--quasi); }
rect.bar.non_paradox { fill: var(--non); }
.cause { border: 1px solid var(--line); border-radius: 8px; padding: 0.2rem 1rem 0.8rem; margin: 1rem 0; }
.cause .links a { margin-right: 1.2rem; }
.failed-night { border-left: 3px solid var(--paradox); padding-left: 0.8rem; margin: 1rem 0; }
footer { margin-top: 3rem; padding-bottom: 2rem; font-size: 0.85rem; color: var(--muted); }
";

/// How the nights were chosen, and how many distinct nights were solved and checked.
fn summary(o: &mut String, r: &Value) {
    let total = escape(text(&r["nights_in_setup"]));
    let nights = count(&r["nights"]);
    let how = match (text(&r["mode"]) == "sampled", r["shard"].as_str()) {
        (true, shard) => format!(
            "{} nights were drawn uniformly at random (with replacement) from the {total} \
             the setup allows, with seed {}{}; every rate below is an estimate, shown with \
             its 95% confidence interval",
            count(&r["samples"]),
            count(&r["seed"]),
            shard.map_or(String::new(), |s| format!(
                " (only shard {}: {nights} of them)",
                escape(s)
            )),
        ),
        (false, None) => {
            format!(
                "All {nights} nights the setup allows were enumerated; every rate below is exact"
            )
        }
        (false, Some(s)) => format!(
            "The {nights} nights of shard {} of the {total} the setup allows were enumerated; \
             every rate below is exact for this shard only",
            escape(s)
        ),
    };
    let distinct = count(&r["distinct_nights_solved"]);
    let checked = count(&r["cross_checked"]);
    let sym = if r["symmetry"].as_bool() == Some(false) {
        ""
    } else {
        " (nights that differ only by interchangeable players solved once)"
    };
    let solved = if r["distinct_nights_solved"].as_u64() == Some(1) {
        format!(
            "1 distinct night was solved{sym}; \
             <span class=\"cross-checked\">{checked} of 1 cross-checked by both engines</span>"
        )
    } else {
        format!(
            "{distinct} distinct nights were solved{sym}; \
             <span class=\"cross-checked\">{checked} of them cross-checked by both engines</span>"
        )
    };
    let _ = writeln!(
        o,
        "<p class=\"summary\">{how}. {solved} (the direct and the SAT engine \
         gave the same answer).</p>"
    );
    if let (Some(n), Some(a)) = (r["nights"].as_u64(), r["answered"].as_u64()) {
        if a < n {
            let _ = writeln!(
                o,
                "<p class=\"warning\"><strong>{} of the {n} nights could not be solved</strong> \
                 and are left out of every rate: see <a href=\"#failed\">the nights not \
                 solved</a>.</p>",
                n - a
            );
        }
    }
}

/// The three classes as a bar chart.
fn classes(o: &mut String, r: &Value) {
    o.push_str("<section id=\"classes\">\n<h2>How often a night is a paradox</h2>\n");
    let mut bars = Vec::new();
    for (key, label) in [
        ("paradox", "paradox"),
        ("quasi_paradox", "quasi-paradox"),
        ("non_paradox", "non-paradox"),
    ] {
        let c = &r["classes"][key];
        let n = count(&c["nights"]);
        let share = c["share"].as_f64();
        let ci = interval(&c["ci95"]);
        let value = format!(
            "{} {} \u{b7} {}{}",
            n,
            if c["nights"].as_u64() == Some(1) {
                "night"
            } else {
                "nights"
            },
            percent(share),
            ci.map_or(String::new(), |(lo, hi)| format!(
                "  [{}, {}]",
                percent(Some(lo)),
                percent(Some(hi))
            )),
        );
        bars.push(Bar {
            label: label.into(),
            value: share,
            ci,
            text: value,
            class: key.into(),
            data: format!("data-class=\"{key}\" data-count=\"{n}\""),
        });
    }
    o.push_str(&chart("classes-chart", "Nights by class", &bars, 1.0));
    o.push_str(
        "<p class=\"note\">A <strong>paradox</strong> has no consistent resolution (gordian \
         settles it by making the fewest actions fail, sparing the most important); a <strong>non-paradox</strong> has exactly \
         one; a <strong>quasi-paradox</strong> has several, and one is picked at random.</p>\n",
    );
    o.push_str("</section>\n");
}

/// Expected deaths, the chance of dying per role (a chart) and per player (a table).
fn deaths(o: &mut String, r: &Value) {
    o.push_str("<section id=\"deaths\">\n<h2>Deaths</h2>\n");
    let d = &r["expected_deaths"];
    let players = r["players"].as_array().map_or(0, Vec::len);
    let _ = writeln!(
        o,
        "<p>Expected deaths per night: <span class=\"big\" id=\"expected-deaths\">{}</span>{}{}</p>",
        fixed(d["mean"].as_f64(), 4),
        if players > 0 {
            format!(" <span class=\"muted\">of {players} players</span>")
        } else {
            String::new()
        },
        interval(&d["ci95"]).map_or(String::new(), |(lo, hi)| format!(
            " <span class=\"muted\">95% interval [{}, {}]</span>",
            fixed(Some(lo), 4),
            fixed(Some(hi), 4)
        ))
    );
    let roles = r["roles"].as_array().cloned().unwrap_or_default();
    o.push_str("<h3>Chance of dying, per role</h3>\n");
    let bars: Vec<Bar> = roles
        .iter()
        .map(|x| {
            let role = text(&x["role"]);
            let n = x["players"].as_u64();
            let chance = x["death_chance"].as_f64();
            let ci = interval(&x["ci95"]);
            Bar {
                label: match n {
                    Some(n) if n != 1 => format!("{role} (\u{d7}{n})"),
                    _ => role.to_string(),
                },
                value: chance,
                ci,
                text: format!(
                    "{}{}",
                    percent(chance),
                    ci.map_or(String::new(), |(lo, hi)| format!(
                        "  [{}, {}]",
                        percent(Some(lo)),
                        percent(Some(hi))
                    ))
                ),
                class: "role".into(),
                data: format!("data-role=\"{}\"", escape(role)),
            }
        })
        .collect();
    if bars.is_empty() {
        o.push_str("<p class=\"muted\">No roles in the report.</p>\n");
    } else {
        let top = bars
            .iter()
            .flat_map(|b| [b.value, b.ci.map(|c| c.1)])
            .flatten()
            .fold(0.0, f64::max);
        o.push_str(&chart(
            "roles-chart",
            "Chance of dying, per role",
            &bars,
            nice_max(top),
        ));
        o.push_str(
            "<p class=\"note\">(\u{d7}n: the role's players; the chance is one player's.)</p>\n",
        );
    }
    o.push_str("<h3>Chance of dying, per player</h3>\n");
    let sampled = text(&r["mode"]) == "sampled";
    o.push_str("<table id=\"players\">\n<thead><tr><th>player</th><th>role</th><th class=\"num\">chance of dying</th>");
    if sampled {
        o.push_str("<th class=\"num\">95% interval</th>");
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for p in r["players"].as_array().into_iter().flatten() {
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td>",
            escape(text(&p["player"])),
            escape(text(&p["role"])),
            percent(p["death_chance"].as_f64())
        );
        if sampled {
            let _ = write!(o, "<td class=\"num\">{}</td>", ci_cell(&p["ci95"]));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n</section>\n");
}

/// The actions' chance of failing.
fn actions(o: &mut String, r: &Value) {
    o.push_str("<section id=\"actions\">\n<h2>Actions that fail</h2>\n");
    let list = r["actions"].as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        o.push_str("<p class=\"muted\">No player chooses an action in this setup.</p>\n");
        o.push_str("</section>\n");
        return;
    }
    let sampled = text(&r["mode"]) == "sampled";
    o.push_str("<p>The chance that an action fails (is blocked, stopped, protected against, ...) in the nights it is taken in.</p>\n");
    o.push_str("<table id=\"actions-table\">\n<thead><tr><th>action</th><th class=\"num\">taken in</th><th class=\"num\">chance of failing</th>");
    if sampled {
        o.push_str("<th class=\"num\">95% interval</th>");
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for a in &list {
        let _ = write!(
            o,
            "<tr><td>{}</td><td class=\"num\">{} nights</td><td class=\"num\">{}</td>",
            escape(text(&a["action"])),
            count(&a["taken_in"]),
            percent(a["fail_chance"].as_f64())
        );
        if sampled {
            let _ = write!(o, "<td class=\"num\">{}</td>", ci_cell(&a["ci95"]));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n</section>\n");
}

/// The paradox causes, each with its example night, playground link and download.
fn causes(o: &mut String, r: &Value, playground: &str) {
    o.push_str("<section id=\"causes\">\n<h2>Why the paradoxes happen</h2>\n");
    let list = r["paradox_causes"].as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        if r["classes"]["paradox"]["nights"].as_u64().unwrap_or(0) == 0 {
            o.push_str("<p>No night of this setup is a paradox.</p>\n");
        } else {
            o.push_str("<p class=\"muted\">The report names no cause for its paradoxes.</p>\n");
        }
        o.push_str("</section>\n");
        return;
    }
    o.push_str(
        "<p>Each cause is the set of roles in a smallest paradox core (a set of the fewest \
         actions with no consistent resolution), with the smallest night it happens in.</p>\n",
    );
    for (i, c) in list.iter().enumerate() {
        let i = i + 1;
        let example = text(&c["example"]);
        let file = format!("cause-{i}.night");
        let link = format!(
            "{playground}#system=ar&name={file}&text={}",
            base64url(example.as_bytes())
        );
        let download = format!(
            "data:text/plain;charset=utf-8,{}",
            percent_encode(example.as_bytes())
        );
        let nights = count(&c["nights"]);
        let _ = writeln!(
            o,
            "<div class=\"cause\" id=\"cause-{i}\">\n<h3>{i}. <span class=\"roles\">{}</span></h3>\n\
             <p><strong>{}</strong> of the paradox nights ({nights} {}){}.</p>\n\
             <pre class=\"example\">{}</pre>\n\
             <p class=\"links\"><a class=\"playground-link\" href=\"{}\">open in the playground</a>\
             <a class=\"download-link\" href=\"{}\" download=\"{}\">download .night</a></p>\n</div>",
            escape(text(&c["roles"])),
            percent(c["share_of_paradoxes"].as_f64()),
            if c["nights"].as_u64() == Some(1) {
                "night"
            } else {
                "nights"
            },
            c["example_effects"]
                .as_u64()
                .map_or(String::new(), |e| format!(
                    "; the smallest example has {e} effects"
                )),
            escape(example),
            escape(&link),
            escape(&download),
            escape(&file),
        );
    }
    o.push_str("<p class=\"note\">The playground solves the night in your browser and explains the paradox (<code>gordian resolve --explain FILE</code> does the same).</p>\n");
    o.push_str("</section>\n");
}

/// The nights not solved the page shows (the JSON report has them all).
const FAILED_SHOWN: usize = 20;

/// The nights that could not be solved, if any (the first [`FAILED_SHOWN`]).
fn failed(o: &mut String, r: &Value) {
    let list = r["failed"].as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        return;
    }
    o.push_str("<section id=\"failed\">\n<h2>Nights not solved</h2>\n");
    let shown = list.len().min(FAILED_SHOWN);
    let _ = writeln!(
        o,
        "<p>{} distinct {} could not be solved; the nights they stand for are left out of \
         every rate above.{}</p>",
        list.len(),
        if list.len() == 1 { "night" } else { "nights" },
        if shown < list.len() {
            format!(" The first {shown} are shown here (the JSON report lists them all).")
        } else {
            String::new()
        }
    );
    for f in &list[..shown] {
        let _ = writeln!(
            o,
            "<div class=\"failed-night\">\n<p><strong>{}</strong> <span class=\"muted\">({} {})</span></p>\n<pre>{}</pre>\n</div>",
            escape(text(&f["error"])),
            count(&f["nights"]),
            if f["nights"].as_u64() == Some(1) {
                "night"
            } else {
                "nights"
            },
            escape(text(&f["night"])),
        );
    }
    o.push_str("</section>\n");
}

/// One bar of a chart.
struct Bar {
    /// The label on the left (plain text; escaped when drawn).
    label: String,
    /// The bar's length, in the chart's unit; `None` draws no bar.
    value: Option<f64>,
    /// The 95% interval, drawn as a whisker.
    ci: Option<(f64, f64)>,
    /// The text on the right (plain text; escaped when drawn).
    text: String,
    /// The bar's CSS class.
    class: String,
    /// Extra attributes of the bar's group, already escaped.
    data: String,
}

const ROW: f64 = 30.0;
const BAR_H: f64 = 18.0;
const BAR_W: f64 = 360.0;
/// A rough width of one character of 13px text, to size the label and value columns.
const CHAR_W: f64 = 7.4;

/// A horizontal bar chart from 0 to `max`, with grid lines, as inline SVG.
fn chart(id: &str, title: &str, bars: &[Bar], max: f64) -> String {
    let max = if max > 0.0 { max } else { 1.0 };
    let label_w = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0) as f64
        * CHAR_W
        + 16.0;
    let label_w = label_w.max(90.0);
    let text_w = bars
        .iter()
        .map(|b| b.text.chars().count())
        .max()
        .unwrap_or(0) as f64
        * CHAR_W
        + 16.0;
    let top = 8.0;
    let height = top + ROW * bars.len() as f64 + 22.0;
    let width = label_w + BAR_W + text_w;
    let x = |v: f64| label_w + BAR_W * (v.clamp(0.0, max) / max);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg class=\"chart\" id=\"{id}\" role=\"img\" \
         aria-labelledby=\"{id}-title\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\">\n<title id=\"{id}-title\">{}</title>",
        escape(title)
    );
    let bottom = top + ROW * bars.len() as f64;
    for k in 0..=5 {
        let v = max * f64::from(k) / 5.0;
        let _ = writeln!(
            s,
            "<line class=\"grid\" x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{bottom}\"/>\
             <text class=\"tick\" x=\"{0:.1}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>",
            x(v),
            bottom + 15.0,
            tick(v)
        );
    }
    for (i, b) in bars.iter().enumerate() {
        let y = top + ROW * i as f64;
        let mid = y + ROW / 2.0;
        let _ = writeln!(s, "<g class=\"row\" {}>", b.data);
        let _ = writeln!(
            s,
            "<title>{}: {}</title>\n<text class=\"label\" x=\"{:.1}\" y=\"{mid}\" \
             dominant-baseline=\"middle\" text-anchor=\"end\">{}</text>",
            escape(&b.label),
            escape(&b.text),
            label_w - 8.0,
            escape(&b.label)
        );
        if let Some(v) = b.value {
            let _ = writeln!(
                s,
                "<rect class=\"bar {}\" x=\"{label_w:.1}\" y=\"{:.1}\" width=\"{:.2}\" \
                 height=\"{BAR_H}\" rx=\"2\"/>",
                escape(&b.class),
                mid - BAR_H / 2.0,
                x(v) - label_w
            );
        }
        if let Some((lo, hi)) = b.ci {
            let (a, z) = (x(lo), x(hi));
            let (t, u) = (mid - 5.0, mid + 5.0);
            let _ = writeln!(
                s,
                "<line class=\"whisker\" x1=\"{a:.2}\" y1=\"{mid}\" x2=\"{z:.2}\" y2=\"{mid}\"/>\
                 <line class=\"whisker\" x1=\"{a:.2}\" y1=\"{t}\" x2=\"{a:.2}\" y2=\"{u}\"/>\
                 <line class=\"whisker\" x1=\"{z:.2}\" y1=\"{t}\" x2=\"{z:.2}\" y2=\"{u}\"/>"
            );
        }
        let _ = writeln!(
            s,
            "<text class=\"value\" x=\"{:.1}\" y=\"{mid}\" dominant-baseline=\"middle\">{}</text>\n</g>",
            label_w + BAR_W + 8.0,
            escape(&b.text)
        );
    }
    let _ = writeln!(
        s,
        "<line class=\"axis\" x1=\"{label_w:.1}\" y1=\"{top}\" x2=\"{label_w:.1}\" y2=\"{bottom}\"/>\n</svg>"
    );
    s
}

/// The smallest of 5%, 10%, 20%, 25%, 50%, 100% at or above `top` (100% past it).
fn nice_max(top: f64) -> f64 {
    [0.05, 0.1, 0.2, 0.25, 0.5, 1.0]
        .into_iter()
        .find(|&m| top <= m)
        .unwrap_or(1.0)
}

/// A grid line's label: a percentage with no useless decimals.
fn tick(v: f64) -> String {
    let p = 100.0 * v;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// A share as a percentage with two decimals (as the text report), `-` when missing.
fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.2}%", 100.0 * x))
}

/// A number with `d` decimals, `-` when missing.
fn fixed(x: Option<f64>, d: usize) -> String {
    x.map_or("-".into(), |x| format!("{x:.d$}"))
}

/// An interval `[lo, hi]`, if the value is one.
fn interval(v: &Value) -> Option<(f64, f64)> {
    Some((v.get(0)?.as_f64()?, v.get(1)?.as_f64()?))
}

/// An interval's table cell.
fn ci_cell(v: &Value) -> String {
    interval(v).map_or("-".into(), |(lo, hi)| {
        format!("[{}, {}]", percent(Some(lo)), percent(Some(hi)))
    })
}

/// A count (a number, or a decimal string for counts past 2^64), `-` when missing.
fn count(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => escape(s),
        _ => "-".into(),
    }
}

/// A string of the report (`""` when missing).
fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// `s` escaped for HTML text and quoted attributes: `&`, `<`, `>`, `"` and `'`.
fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// URL-safe base64 with no padding (RFC 4648 §5): the playground's share-link `text`.
fn base64url(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut o = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..=chunk.len() {
            o.push(char::from(ABC[((n >> (18 - 6 * k)) & 63) as usize]));
        }
    }
    o
}

/// Percent-encodes every byte but the unreserved characters of RFC 3986 (for `data:`).
fn percent_encode(bytes: &[u8]) -> String {
    let mut o = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            o.push(char::from(b));
        } else {
            let _ = write!(o, "%{b:02X}");
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64url_matches_rfc_4648() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url(input.as_bytes()), want, "{input:?}");
        }
        // Standard base64 would give `+` and `/` here: `-` and `_` in the URL-safe alphabet.
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url(&[0xfb, 0xef, 0xbe]), "----");
        assert_eq!(base64url(&[0xff, 0xff, 0xff]), "____");
        assert_eq!(base64url("Zoë".as_bytes()), "Wm_Dqw");
    }

    #[test]
    fn escape_covers_the_five_characters() {
        assert_eq!(
            escape(r#"<a href="x">Tom & Jerry's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
        );
        assert_eq!(escape("plain Zoë"), "plain Zoë");
    }

    #[test]
    fn percent_encoding_keeps_only_unreserved() {
        assert_eq!(percent_encode(b"a b\n#%&:"), "a%20b%0A%23%25%26%3A");
        assert_eq!(percent_encode("ë".as_bytes()), "%C3%AB");
    }

    fn small_report() -> Value {
        let example = "players: A B <C>\nA block B\nB block A\n";
        json!({
            "setup": "setups/x & <y>.setup",
            "mode": "sampled",
            "nights_in_setup": "12",
            "samples": 100,
            "seed": 7,
            "shard": null,
            "symmetry": true,
            "nights": 100,
            "answered": 99,
            "distinct_nights_solved": 5,
            "cross_checked": 4,
            "classes": {
                "paradox": { "nights": 9, "share": 9.0 / 99.0, "ci95": [0.04, 0.16] },
                "quasi_paradox": { "nights": 0, "share": 0.0, "ci95": [0.0, 0.03] },
                "non_paradox": { "nights": 90, "share": 90.0 / 99.0, "ci95": [0.83, 0.95] },
            },
            "expected_deaths": { "mean": 0.5, "ci95": [0.4, 0.6] },
            "players": [
                { "player": "A", "role": "town <roleblocker>", "death_chance": 0.25, "ci95": [0.2, 0.3] },
                { "player": "B", "role": "town <roleblocker>", "death_chance": 0.25, "ci95": [0.2, 0.3] },
            ],
            "roles": [
                { "role": "town <roleblocker>", "players": 2, "death_chance": 0.25, "ci95": [0.2, 0.3] },
            ],
            "actions": [
                { "action": "town <roleblocker>", "taken_in": 99, "fail_chance": 0.5, "ci95": null },
            ],
            "paradox_causes": [
                { "roles": "town <roleblocker> + town <roleblocker>", "nights": 9,
                  "share_of_paradoxes": 1.0, "example": example, "example_effects": 2 },
            ],
            "failed": [
                { "nights": 1, "night": "players: A\n", "error": "timeout: no answer within 1 s (--timeout)" },
            ],
            "tally": {},
        })
    }

    #[test]
    fn the_page_links_the_example_and_loads_nothing() {
        let report = small_report();
        let html = page(&report, "https://example.org/play/index.html?a=1");
        let example = report["paradox_causes"][0]["example"].as_str().unwrap();
        let text = base64url(example.as_bytes());
        let link = format!(
            "href=\"https://example.org/play/index.html?a=1#system=ar&amp;name=cause-1.night&amp;text={text}\""
        );
        assert!(html.contains(&link), "{html}");
        assert!(!text.contains(['+', '/', '=']));
        assert!(html.contains(&format!(
            "href=\"data:text/plain;charset=utf-8,{}\" download=\"cause-1.night\"",
            percent_encode(example.as_bytes())
        )));
        assert!(html.contains("<pre class=\"example\">players: A B &lt;C&gt;\n"));
        assert!(html.contains("x &amp; &lt;y&gt;.setup"));
        assert!(!html.contains("<roleblocker>") && !html.contains("<C>") && !html.contains("<y>"));
        assert!(html.contains("timeout: no answer within 1 s"));
        assert!(html.contains("data-count=\"9\""));
        assert!(html.contains("class=\"whisker\""));
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));

        // With a relative playground, the page has no outside address at all.
        let html = page(&report, "index.html");
        assert!(html.contains("href=\"index.html#system=ar&amp;name=cause-1.night&amp;text="));
        for bad in [
            "src=\"http",
            "href=\"http",
            "src='http",
            "href='http",
            "url(",
            "@import",
        ] {
            assert!(!html.contains(bad), "{bad} in the page");
        }
        assert!(!html.contains("<script"));
        assert!(!html.contains(" src="));
    }

    #[test]
    fn an_exact_report_without_paradoxes() {
        let mut report = small_report();
        report["mode"] = json!("exact");
        report["paradox_causes"] = json!([]);
        report["classes"]["paradox"] = json!({ "nights": 0, "share": 0.0, "ci95": null });
        report["failed"] = json!([]);
        report["answered"] = json!(100);
        let html = page(&report, "index.html");
        assert!(html.contains("All 100 nights the setup allows were enumerated"));
        assert!(html.contains("No night of this setup is a paradox."));
        assert!(!html.contains("id=\"failed\""));
        assert!(!html.contains("playground-link"));
    }
}
