import assert from 'node:assert/strict'
import { fts5Trigrams, pgTrgmTrigrams, selectiveParts, TrigramCounts } from '../../../src/db/search-terms'

/** Trigram counts of a table of `total` rows: the listed ones, every other trigram in `others` rows. */
const counts = (total: number, listed: Record<string, number>, others = 1): TrigramCounts => ({
  total,
  rows: (trigram) => listed[trigram] ?? others
})

describe('search terms: which parts of a $like a trigram index looks up', () => {
  it("splits a search into FTS5's trigrams: every three characters, case folded", () => {
    assert.deepEqual(fts5Trigrams.ofPattern('K-1000'), ['k-1', '-10', '100', '000'])
    assert.deepEqual(fts5Trigrams.ofPattern('ÄÖü'), ['äöü'])
    assert.deepEqual(fts5Trigrams.ofPattern('ab'), [])
  })

  it("splits a search into pg_trgm's trigrams: per word, padded only where the text shows the word's edge", () => {
    assert.deepEqual(pgTrgmTrigrams.ofPattern('K-100017'), ['  1', ' 10', '100', '000', '001', '017'])
    assert.deepEqual(pgTrgmTrigrams.ofPattern('00017'), ['000', '001', '017'])
    assert.deepEqual(pgTrgmTrigrams.ofPattern('Dach '), ['dac', 'ach', 'ch '])
    // A stored value's first and last words are padded at its ends too.
    assert.deepEqual(pgTrgmTrigrams.ofValue('Dach'), ['  d', ' da', 'dac', 'ach', 'ch '])
  })

  it('looks up only the rare part of a term whose other trigrams most rows have', () => {
    const customerNumbers = counts(50_000, {
      'k-1': 50_000,
      '-10': 50_000,
      '100': 25_000,
      '000': 2_500,
      '001': 3_000,
      '017': 3_000
    })
    assert.deepEqual(selectiveParts(['K-100017'], fts5Trigrams, customerNumbers), ['00017'])
    const pg = counts(50_000, { '  1': 50_000, ' 10': 50_000, '100': 25_000, '000': 2_500, '001': 3_000, '017': 3_000 })
    assert.deepEqual(selectiveParts(['K-100017'], pgTrgmTrigrams, pg), ['00017'])
  })

  it('keeps the parts on both sides of a frequent trigram, in every run', () => {
    const streets = counts(50_000, { str: 15_000, tra: 15_000, raß: 15_000, aße: 15_000, 'ße ': 15_000 }, 400)
    assert.deepEqual(selectiveParts(['Kabel Hauptstraße 12', 'Dach'], fts5Trigrams, streets), [
      'Kabel Hauptst',
      'e 12',
      'Dach'
    ])
  })

  it('looks a term up whole when no trigram is frequent, or when nothing would be left', () => {
    const runs = ['Kabel']
    // Equally common trigrams: each narrows as much as the others.
    assert.equal(selectiveParts(runs, fts5Trigrams, counts(50_000, {}, 4_000)), runs)
    // Frequent against the rarest, but in a small share of the table: it still narrows.
    assert.equal(selectiveParts(runs, fts5Trigrams, counts(50_000, { kab: 10 }, 4_000)), runs)
    // A word in every row: nothing rarer to look up instead.
    assert.deepEqual(selectiveParts(['abc'], fts5Trigrams, counts(50_000, {}, 50_000)), ['abc'])
    // A long pattern is selective by itself: it is not taken apart.
    const long = ['Hauptstraße 12, K-100017, 2. OG']
    assert.equal(selectiveParts(long, fts5Trigrams, counts(50_000, { 'k-1': 50_000, '-10': 50_000 })), long)
    // pg_trgm has no trigram for a one-letter word: K-1's only one (`  1`) is frequent, and stays.
    assert.equal(selectiveParts(['K-1'], pgTrgmTrigrams, counts(50_000, { '  1': 50_000 })).join(), 'K-1')
  })

  it('never proposes a part that is not in the pattern', () => {
    const random = (n: number) => Array.from({ length: n }, () => 'ab-1 2Kx'[Math.floor(Math.random() * 8)]).join('')
    for (let i = 0; i < 500; i++) {
      const runs = [random(3 + (i % 20)), random(3 + (i % 7))]
      const listed = Object.fromEntries(
        runs.flatMap(fts5Trigrams.ofPattern).map((trigram, k) => [trigram, k % 3 === 0 ? 40_000 : 100 + k])
      )
      for (const scheme of [fts5Trigrams, pgTrgmTrigrams]) {
        for (const part of selectiveParts(runs, scheme, counts(50_000, listed))) {
          assert.ok(
            runs.some((run) => run.includes(part)),
            `${JSON.stringify(part)} of ${JSON.stringify(runs)}`
          )
        }
      }
    }
  })
})
