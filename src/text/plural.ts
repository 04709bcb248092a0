/**
 * A count with the phrase for it, one helper for every message: the phrase is given whole for one
 * and for many ("bet/bet_result transaction with a lost reply" / "… transactions with a lost reply"),
 * never made by appending an s; `Intl.PluralRules` chooses.
 */
export interface Phrase {
  one: string;
  other: string;
}

const rules = new Intl.PluralRules('en');

/** `count(3, { one: 'resend', other: 'resends' })` → "3 resends". */
export const count = (n: number, p: Phrase): string => `${n} ${rules.select(n) === 'one' ? p.one : p.other}`;

/** The common case: a noun whose plural is regular, written once (`nouns('callback')`). */
export const noun = (one: string, other = `${one}s`): Phrase => ({ one, other });
