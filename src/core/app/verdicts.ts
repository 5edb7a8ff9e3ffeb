/** What the check concluded of each reference and citation, and how it is said: the verdicts, the existence and retraction findings, the nearest real paper and the fixes offered. */
export type { ExistenceVerdict } from '../verify/existence';
export { fieldsFromRecord } from '../verify/fixes';
export { nearestRecords, type NearRecord } from '../verify/nearest';
export type { CitationSupport, Verdicts } from '../verify/results';
export type { RetractionStatus } from '../verify/retraction';
export { RETRACTION_CODES } from '../verify/retractionFindings';
