import { esc } from './html.js';
import { COLOR } from './palette.js';
import { offset, WIDTH } from './timeline.js';
import type { ReportGapBucket, ReportThresholds } from '../protocol/types.generated.js';

// The timing profile's picture: the session's retry gaps (arrival to arrival of two attempts of one
// transaction) as a histogram of the report's buckets, with the declared minimum gap and time-out
// drawn where they fall. One bar per bucket, of equal width (the buckets roughly double).

const GUTTER = 44;
const TOP = 30;
const PLOT = 150;
const BOTTOM = 40;

const duration = (ms: number) => offset(ms).slice(1);
const n = (v: number) => (Math.round(v * 10) / 10).toString();

/** The bucket's words: "500 ms – 1 s", "≥ 60 s". */
export const bucketLabel = (b: ReportGapBucket) =>
  b.to_ms === null ? `≥ ${duration(b.from_ms)}` : `${duration(b.from_ms)}–${duration(b.to_ms)}`;

/**
 * The retry gaps' histogram as an SVG element (a string), or '' when there is no gap. The caller
 * writes the profile's text beside it.
 */
export function gapHistogramSvg(
  buckets: readonly ReportGapBucket[],
  t?: Pick<ReportThresholds, 'client_timeout_s' | 'min_retry_gap_ms'>,
): string {
  const total = buckets.reduce((s, b) => s + b.count, 0);
  if (!buckets.length || !total) return '';
  const most = Math.max(...buckets.map((b) => b.count));
  const slot = (WIDTH - GUTTER - 20) / buckets.length;
  const height = TOP + PLOT + BOTTOM;
  const base = TOP + PLOT;
  const out: string[] = [];
  out.push(`<line x1="${GUTTER}" y1="${base}" x2="${WIDTH - 20}" y2="${base}" stroke="${COLOR.muted}"/>`);
  buckets.forEach((b, i) => {
    const h = b.count ? Math.max(2, (b.count / most) * (PLOT - 16)) : 0;
    const bx = GUTTER + i * slot;
    const title = `${b.count} ${b.count === 1 ? 'gap' : 'gaps'} of ${bucketLabel(b)}`;
    out.push(
      `<g class="bucket" data-from="${b.from_ms}" data-count="${b.count}"><title>${esc(title)}</title><rect x="${n(bx + 6)}" y="${n(base - h)}" width="${n(slot - 12)}" height="${n(h)}" fill="${COLOR.bar}"/>${
        b.count
          ? `<text x="${n(bx + slot / 2)}" y="${n(base - h - 4)}" text-anchor="middle" font-size="11" fill="${COLOR.ink}">${b.count}</text>`
          : ''
      }<text x="${n(bx + slot / 2)}" y="${base + 16}" text-anchor="middle" font-size="10" fill="${COLOR.muted}">${esc(bucketLabel(b))}</text></g>`,
    );
  });
  // A threshold within its bucket, in proportion (the open-ended last bucket: at its start).
  const where = (ms: number) => {
    let i = buckets.length - 1;
    while (i > 0 && ms < buckets[i]!.from_ms) i--;
    const b = buckets[i]!;
    const frac = b.to_ms === null ? 0 : Math.min(1, Math.max(0, (ms - b.from_ms) / (b.to_ms - b.from_ms)));
    return GUTTER + (i + frac) * slot;
  };
  const marks: [number, string, string, string][] = [];
  if (t) {
    marks.push([t.min_retry_gap_ms, `minimum gap ${duration(t.min_retry_gap_ms)}`, COLOR.dropped, 'min-gap']);
    marks.push([t.client_timeout_s * 1000, `time-out ${duration(t.client_timeout_s * 1000)}`, COLOR.timeout, 'timeout']);
  }
  marks.forEach(([ms, word, color, cls], k) => {
    const tx = n(where(ms));
    out.push(
      `<g class="threshold ${cls}"><title>${esc(`declared ${word}`)}</title><line x1="${tx}" y1="${TOP - 6 + k * 12}" x2="${tx}" y2="${base}" stroke="${color}" stroke-width="2" stroke-dasharray="6 3"/><text x="${tx}" y="${TOP - 10 + k * 12}" text-anchor="middle" font-size="11" font-weight="600" fill="${color}">${esc(word)}</text></g>`,
    );
  });
  out.push(
    `<text x="${GUTTER}" y="${height - 6}" font-size="11" fill="${COLOR.ink}">${esc(`retry gaps (arrival to arrival of two attempts of one transaction): ${total} in all`)}</text>`,
  );
  const label = `Histogram of ${total} retry gaps: ${buckets
    .filter((b) => b.count)
    .map((b) => `${b.count} of ${bucketLabel(b)}`)
    .join(', ')}`;
  return `<svg class="histogram" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" role="img" aria-label="${esc(label)}" font-family="system-ui, sans-serif"><rect width="${WIDTH}" height="${height}" fill="${COLOR.paper}"/>${out.join('')}</svg>`;
}
