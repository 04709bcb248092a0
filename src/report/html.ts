// What the self-contained HTML pages (the certification report, probe's report) share: escaping
// and one style sheet, inline (no external asset).

/** Text for HTML: every character that could open markup or end an attribute, escaped. */
export const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The pages' style sheet (the content of a <style> element). */
export const PAGE_STYLE = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1d2330}
h1{font-size:1.4em;margin-bottom:.2em}.meta{color:#5b6475}
.verdict{font-size:1.2em;font-weight:600;padding:.6em 1em;border-radius:6px;margin:1em 0}
.verdict.ok{background:#e3f5e8;color:#17603a}.verdict.ko{background:#fde7e7;color:#9b1c1c}
table{border-collapse:collapse;width:100%;margin:1em 0}th,td{border-bottom:1px solid #e2e5eb;padding:.5em;text-align:left;vertical-align:top}
th{background:#f5f6f8}.num{text-align:right}.title{color:#5b6475}
.badge{display:inline-block;border-radius:4px;padding:.1em .5em;font-size:.8em;font-weight:700;white-space:nowrap}
.badge.pass{background:#e3f5e8;color:#17603a}.badge.fail{background:#fde7e7;color:#9b1c1c}.badge.warn,.badge.pending{background:#fff4d6;color:#7a5a00}
.badge.skip,.badge.not_exercised{background:#eceef2;color:#5b6475}
.fix{margin:.4em 0}.warn{color:#9b1c1c}details{margin:.3em 0 .6em}pre{white-space:pre-wrap;word-break:break-all;background:#f5f6f8;padding:.5em;border-radius:4px;font-size:12px;margin:.2em 0}.ids{font-family:ui-monospace,monospace;color:#5b6475}code{font-family:ui-monospace,monospace}
figure.picture{margin:.6em 0 1em;max-width:1000px}figure.picture figcaption{margin-bottom:.3em}svg.timeline,svg.histogram{display:block;max-width:1000px;border:1px solid #e2e5eb;border-radius:4px}`;
