import { attestPackages } from '../core/app/text';

/** Attest's version, from the nearest package.json that is Attest's (see `attestPackages`). */
export function attestVersion(from = __dirname): string {
  return attestPackages(from).next().value?.version ?? 'unknown';
}
