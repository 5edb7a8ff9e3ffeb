/** Where each paper is among the open segments, and which rows a later segment holds again. */
import { DiskSegment, type SegmentFiles } from '../segment';

/**
 * Where a paper is: a row of a segment on disk, as one number (`segment × SEGMENT_ROWS + row`, no
 * object for each of 100,000 papers), or `IN_MEMORY`.
 */
export type Place = number;
export const IN_MEMORY = -1;
export const SEGMENT_ROWS = 1 << 24;

/** The segments the files name, open; those of `open` are reused, the rest opened now. */
export async function openSegments(dir: string, files: readonly SegmentFiles[], open: readonly DiskSegment[]): Promise<DiskSegment[]> {
  const byFile = new Map(open.map((segment) => [segment.files.lexical, segment]));
  const segments: DiskSegment[] = [];
  try {
    for (const file of files) {
      const reused = byFile.get(file.lexical);
      segments.push(reused && reused.files.papers === file.papers && reused.count === file.count ? reused : await DiskSegment.open(dir, file));
    }
  } catch (error) {
    for (const segment of segments) if (!open.includes(segment)) segment.close();
    throw error;
  }
  return segments;
}

/**
 * Where each paper is, the last segment that holds it, and per segment the rows a later one holds
 * again (undefined for a segment without any).
 */
export function placesOf(segments: readonly DiskSegment[]): { places: Map<string, Place>; dead: (Uint8Array | undefined)[] } {
  const places = new Map<string, Place>();
  const dead: (Uint8Array | undefined)[] = segments.map(() => undefined);
  segments.forEach((segment, at) => {
    const base = at * SEGMENT_ROWS;
    segment.ids.forEach((id, row) => {
      const earlier = places.get(id);
      if (earlier !== undefined) {
        const where = Math.floor(earlier / SEGMENT_ROWS);
        (dead[where] ??= new Uint8Array(segments[where].count))[earlier % SEGMENT_ROWS] = 1;
      }
      places.set(id, base + row);
    });
  });
  return { places, dead };
}
