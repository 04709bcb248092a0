import { useLayoutEffect, useRef } from 'preact/hooks';
import { JournalLinks } from './journal-links.js';
/** The protocol's failed code: a settlement answered with it waits on a resend (FAILED_SETTLEMENT_RETRIED's window). */
const FAILED = 'R1';
import { gapHistogramSvg } from '../../src/report/histogram.js';
import { DRAWN_PER_CHECK, timelineSvg } from '../../src/report/timeline.js';
import { timingPhrases } from '../../src/grading/timing-text.js';
import { violationTally } from '../../src/grading/listed-violations.js';
import type { Report } from './types.js';

/** What the wide panel draws: a check's violations as timelines, or the timing profile's histogram. */
export type Picture = { kind: 'check'; id: string } | { kind: 'timing' };

/**
 * An SVG string from src/report/ (the renderer the HTML report uses): markup it built with every
 * text escaped, styled by SVG attributes only, so the page's content security policy (no inline
 * style) holds.
 */
const Svg = ({ svg }: { svg: string }) => <div class="svg" dangerouslySetInnerHTML={{ __html: svg }} />;

/** The check detail: each violation of one check drawn as a timeline, its message beside it; or the retry gaps' histogram. */
export function Pictures({
  report: r,
  picture,
  onShow,
  onClose,
}: {
  report: Report;
  picture: Picture;
  onShow: (journalId: number) => void;
  onClose: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const key = picture.kind === 'check' ? picture.id : 'timing';
  useLayoutEffect(() => {
    heading.current?.focus();
  }, [key]);
  const check = picture.kind === 'check' ? r.checks.find((c) => c.id === picture.id) : undefined;
  const tally = violationTally(check?.violations ?? []);
  const relayed = check?.side === 'wallet' && r.upstream !== undefined;
  const buckets = r.timing.retry_gap_ms?.buckets;
  return (
    <section class="panel pictures" aria-labelledby="pictures-title" data-picture={key}>
      <div class="panel-head">
        <h2 id="pictures-title" tabIndex={-1} ref={heading}>
          {check ? (
            <>
              Timelines of <code>{check.id}</code>
            </>
          ) : (
            'Retry gaps'
          )}
        </h2>
        <button type="button" onClick={onClose} aria-label="Close the pictures">
          Close
        </button>
      </div>
      {check && (
        <>
          <p class="muted">
            {check.title}
            {check.fix ? ` Fix: ${check.fix}` : ''}
          </p>
          {check.violations.length === 0 && <p class="muted">No violation to draw.</p>}
          {tally.total > DRAWN_PER_CHECK && (
            <p class="muted">
              The first {DRAWN_PER_CHECK} of {tally.total} violations are drawn;{' '}
              {tally.itemized < tally.total
                ? `the checklist lists the first ${tally.itemized}, the rest counted.`
                : 'the checklist lists them all.'}
            </p>
          )}
          {check.violations.slice(0, DRAWN_PER_CHECK).map((v, i) => (
            <figure class="picture" data-violation={i}>
              <figcaption>
                {v.message}
                <JournalLinks ids={v.journal_ids} onShow={onShow} />
              </figcaption>
              <Svg svg={timelineSvg(v, { thresholds: r.thresholds, relayed, check: check.id, failedCode: FAILED })} />
            </figure>
          ))}
        </>
      )}
      {picture.kind === 'timing' && (
        <figure class="picture">
          <figcaption>{timingPhrases(r).join(' · ')}</figcaption>
          {buckets ? <Svg svg={gapHistogramSvg(buckets, r.thresholds)} /> : <p class="muted">No resend observed yet.</p>}
        </figure>
      )}
    </section>
  );
}
