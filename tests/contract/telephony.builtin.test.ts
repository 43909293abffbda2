/** The built-in carrier (SIMULATION_SPEED 0: each call plays out at once) passes the telephony contract. */
import { builtinCarrier } from '../../infrastructure/carrier/builtin-carrier';
import { seededRandom } from '../../domain/calls/simulation/random';
import { ring } from '../../domain/calls/simulation/ringing';
import { telephonyContract, type ScriptedCall } from './telephony.contract';

/** The next call id whose seeded simulation rings the way wanted (the carrier seeds each call by its id). */
function callRinging(wanted: readonly string[], to: string, from: number): ScriptedCall & { next: number } {
  for (let i = from; ; i++) {
    const callId = `call-${i}`;
    if (wanted.includes(ring(seededRandom(`${callId}:ring`), to).outcome)) return { callId, to, next: i + 1 };
  }
}

telephonyContract('builtin', () => {
  let next = 0;
  const pick = (wanted: readonly string[]) => {
    const call = callRinging(wanted, '+919812345678', next);
    next = call.next;
    return { callId: call.callId, to: call.to };
  };
  return {
    organizationId: 'o1',
    async start({ reports }) {
      let ids = 0;
      const carrier = builtinCarrier({ reports, speed: 0, newId: () => `id-${ids++}` });
      return { provider: carrier, settled: () => carrier.idle(), stop: () => carrier.stop() };
    },
    answered: () => pick(['answered']),
    notAnswered: () => pick(['busy', 'no_answer']),
  };
});
