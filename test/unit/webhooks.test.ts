import assert from 'node:assert/strict'
import { isPublicAddress } from '../../src/webhooks/addresses'
import { typeMatches, typePatternErrors } from '../../src/webhooks/event-types'

describe('webhook addresses and event types', () => {
  it('takes only public unicast addresses as webhook targets, IPv4-mapped IPv6 as its IPv4, no IPv4-compatible IPv6', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])
      assert.equal(isPublicAddress(address), true, address)
    for (const address of [
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      // IPv4-compatible (::/96), whatever the IPv4 address: the URL parser writes [::127.0.0.1] as ::7f00:1.
      '::7f00:1',
      '::127.0.0.1',
      '::a9fe:a9fe',
      '::a00:1',
      '::808:808',
      'not an address'
    ])
      assert.equal(isPublicAddress(address), false, address)
  })

  it('matches event types by collection and action, * for either part or alone', () => {
    const cases: [string[], string, boolean][] = [
      [[], 'users.created', true],
      [['*'], 'company.recomputed', true],
      [['time-entries.*'], 'time-entries.patched', true],
      [['time-entries.*'], 'time-entry-types.patched', false],
      [['*.removed'], 'customers.removed', true],
      [['*.removed'], 'customers.created', false],
      [['users.created', 'customers.patched'], 'customers.patched', true],
      [['users.created'], 'users.created-later', false]
    ]
    for (const [patterns, type, expected] of cases)
      assert.equal(typeMatches(patterns, type), expected, `${patterns} ${type}`)
  })

  it('names patterns that can never match', () => {
    assert.deepEqual(
      Object.keys(
        typePatternErrors(['customers.*', 'customer.created', '*.deleted', 'company.recomputed', '*'], ['customers'])
      ),
      ['types.1', 'types.2']
    )
  })
})
