/**
 * The five open sources on one local server, answering about a handful of works in each service's
 * real shape (Crossref's `updated-by`/`update-to`, OpenAlex's `is_retracted`, Europe PMC's core
 * result with `pubTypeList` and `commentCorrectionList`, arXiv's Atom entry with its comment), as
 * public records show them. Each source lives under `/<source id>`.
 */
import type * as http from 'node:http';
import { sourcesConfigFrom } from '../../../src/core/sources/config';
import { createSources } from '../../../src/core/sources/registry';
import type { SourceId } from '../../../src/core/sources/ids';
import { ScriptedServer, sendJson, sendText } from './server';

/** One work as the services hold it; a field left out is a service that does not have the work. */
export interface SimulatedWork {
  readonly doi?: string;
  readonly title: string;
  readonly family: string;
  readonly given: string;
  readonly year: number;
  readonly journal?: string;
  /** Crossref's title where it differs ("RETRACTED: …", JATS markup). */
  readonly crossrefTitle?: string;
  readonly crossrefType?: string;
  readonly updatedBy?: readonly Record<string, unknown>[];
  readonly updateTo?: readonly Record<string, unknown>[];
  /** OpenAlex's `is_retracted`; undefined: OpenAlex does not have the work. */
  readonly isRetracted?: boolean;
  readonly openAlexTitle?: string;
  /** Europe PMC's record; undefined: not in Europe PMC. */
  readonly europePmc?: { readonly pmid: string; readonly pubTypes: readonly string[]; readonly comments?: readonly Record<string, unknown>[] };
  /** arXiv's record; undefined: not on arXiv. */
  readonly arxiv?: { readonly id: string; readonly comment?: string; readonly pdf: boolean };
}

export type Respond = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** Crossref's `updated` date of a notice. */
export function updated(year: number, month: number, day: number): Record<string, unknown> {
  return {
    'date-parts': [[year, month, day]],
    'date-time': `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T00:00:00Z`,
    timestamp: Date.UTC(year, month - 1, day),
  };
}

export class SimulatedSources {
  private constructor(
    readonly server: ScriptedServer,
    private readonly failing: Map<SourceId, Respond>,
  ) {}

  static async start(works: readonly SimulatedWork[]): Promise<SimulatedSources> {
    const failing = new Map<SourceId, Respond>();
    const server = await ScriptedServer.start(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const source = url.pathname.split('/')[1] as SourceId;
      const failure = failing.get(source);
      if (failure) return failure(req, res);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      answer(works, source, url, Buffer.concat(chunks).toString('utf8'), res);
    });
    return new SimulatedSources(server, failing);
  }

  /** Makes `source` answer every request so, until `heal`. */
  fail(source: SourceId, respond: Respond): void {
    this.failing.set(source, respond);
  }

  /** The five free sources at this server, fast. */
  sources(enabled: readonly SourceId[] = ['crossref', 'openalex', 'semanticscholar', 'arxiv', 'europepmc']): ReturnType<typeof createSources> {
    const settings: Record<string, unknown> = { 'attest.sources.enabled': enabled };
    for (const id of enabled) {
      settings[`attest.sources.${id}.baseUrl`] = `${this.server.baseUrl}/${id}`;
      settings[`attest.sources.${id}.requestsPerSecond`] = 1000;
    }
    return createSources(sourcesConfigFrom((name) => settings[name]).config, {});
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

function answer(works: readonly SimulatedWork[], source: SourceId, url: URL, body: string, res: http.ServerResponse): void {
  const rest = decodeURIComponent(url.pathname.split('/').slice(2).join('/'));
  const byDoi = (doi: string): SimulatedWork | undefined => works.find((w) => w.doi === doi.toLowerCase());
  const byTitle = (query: string): SimulatedWork[] => works.filter((w) => words(query).includes(words(w.title).slice(0, 24)));
  switch (source) {
    case 'crossref': {
      if (rest.startsWith('works/')) {
        const work = byDoi(rest.slice('works/'.length));
        return work ? sendJson(res, 200, { status: 'ok', 'message-type': 'work', message: crossrefWork(work) }) : sendText(res, 404, 'Resource not found.');
      }
      const found = byTitle(url.searchParams.get('query.bibliographic') ?? '').filter((w) => w.doi);
      return sendJson(res, 200, { status: 'ok', 'message-type': 'work-list', message: { items: found.map(crossrefWork) } });
    }
    case 'openalex': {
      if (rest.startsWith('works/doi:')) {
        const work = byDoi(rest.slice('works/doi:'.length));
        return work && work.isRetracted !== undefined ? sendJson(res, 200, openAlexWork(work)) : sendJson(res, 404, { error: 'Not Found' });
      }
      const found = byTitle(url.searchParams.get('search') ?? '').filter((w) => w.isRetracted !== undefined);
      return sendJson(res, 200, { meta: { count: found.length }, results: found.map(openAlexWork) });
    }
    case 'semanticscholar': {
      // Semantic Scholar knows every work with a DOI, and says nothing of retractions.
      if (rest.endsWith('paper/batch')) {
        const ids = (JSON.parse(body) as { ids: string[] }).ids;
        return sendJson(
          res,
          200,
          ids.map((id) => {
            const work = byDoi(id.replace(/^DOI:/, ''));
            return work ? semanticScholarPaper(work) : null;
          }),
        );
      }
      if (rest.includes('paper/search')) {
        const found = byTitle(url.searchParams.get('query') ?? '').filter((w) => w.doi);
        return sendJson(res, 200, { total: found.length, offset: 0, data: found.map(semanticScholarPaper) });
      }
      const work = rest.includes('paper/DOI:') ? byDoi(rest.slice(rest.indexOf('DOI:') + 4)) : undefined;
      return work ? sendJson(res, 200, semanticScholarPaper(work)) : sendJson(res, 404, { error: 'Paper not found' });
    }
    case 'europepmc': {
      const query = url.searchParams.get('query') ?? '';
      const doi = /^DOI:"(.+)"$/.exec(query)?.[1];
      const pmid = /^EXT_ID:"(\d+)" AND SRC:MED$/.exec(query)?.[1];
      const title = /TITLE:"([^"]+)"/.exec(query)?.[1];
      const found = works.filter(
        (w) =>
          w.europePmc && ((doi !== undefined && w.doi === doi) || (pmid !== undefined && w.europePmc.pmid === pmid) || (title !== undefined && words(w.title) === words(title))),
      );
      return sendJson(res, 200, { version: '6.9', hitCount: found.length, resultList: { result: found.map(europePmcResult) } });
    }
    case 'arxiv': {
      const id = url.searchParams.get('id_list');
      const found = works.filter((w) => w.arxiv && w.arxiv.id === id);
      return sendText(res, 200, arxivFeed(found), { 'content-type': 'application/atom+xml' });
    }
    default:
      return sendText(res, 404, 'Not Found');
  }
}

function words(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

function crossrefWork(work: SimulatedWork): Record<string, unknown> {
  return {
    DOI: work.doi,
    URL: `https://doi.org/${work.doi}`,
    type: work.crossrefType ?? 'journal-article',
    title: [work.crossrefTitle ?? work.title],
    author: [{ given: work.given, family: work.family, sequence: 'first', affiliation: [] }],
    issued: { 'date-parts': [[work.year]] },
    'container-title': work.journal ? [work.journal] : [],
    ...(work.updatedBy ? { 'updated-by': work.updatedBy } : {}),
    ...(work.updateTo ? { 'update-to': work.updateTo } : {}),
  };
}

function semanticScholarPaper(work: SimulatedWork): Record<string, unknown> {
  return {
    paperId: `s2-${work.family}`,
    title: work.title,
    year: work.year,
    venue: work.journal ?? '',
    authors: [{ authorId: '1', name: `${work.given} ${work.family}` }],
    externalIds: { DOI: work.doi },
  };
}

function openAlexWork(work: SimulatedWork): Record<string, unknown> {
  const title = work.openAlexTitle ?? work.title;
  return {
    id: `https://openalex.org/W${work.year}${work.family.length}`,
    doi: `https://doi.org/${work.doi}`,
    title,
    display_name: title,
    publication_year: work.year,
    authorships: [{ author: { display_name: `${work.given} ${work.family}` }, raw_author_name: `${work.given} ${work.family}` }],
    primary_location: { source: work.journal ? { display_name: work.journal, type: 'journal' } : null },
    is_retracted: work.isRetracted,
    ids: { openalex: 'https://openalex.org/W1', doi: `https://doi.org/${work.doi}`, ...(work.europePmc ? { pmid: `https://pubmed.ncbi.nlm.nih.gov/${work.europePmc.pmid}` } : {}) },
  };
}

function europePmcResult(work: SimulatedWork): Record<string, unknown> {
  const record = work.europePmc!;
  return {
    id: record.pmid,
    source: 'MED',
    pmid: record.pmid,
    ...(work.doi ? { doi: work.doi } : {}),
    title: `${work.title}.`,
    authorList: { author: [{ fullName: `${work.family} ${work.given[0]}`, firstName: work.given, lastName: work.family, initials: work.given[0] }] },
    journalInfo: { journal: { title: work.journal ?? 'Journal' } },
    pubYear: String(work.year),
    pubTypeList: { pubType: record.pubTypes },
    ...(record.comments ? { commentCorrectionList: { commentCorrection: record.comments } } : {}),
  };
}

function arxivFeed(works: readonly SimulatedWork[]): string {
  const entries = works.map((w) => {
    const arxiv = w.arxiv!;
    const pdf = arxiv.pdf ? `<link title="pdf" href="http://arxiv.org/pdf/${arxiv.id}v2" rel="related" type="application/pdf"/>` : '';
    const comment = arxiv.comment ? `<arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">${arxiv.comment}</arxiv:comment>` : '';
    return `<entry><id>http://arxiv.org/abs/${arxiv.id}v2</id><published>${w.year}-01-02T00:00:00Z</published><title>${w.title}</title><summary>An abstract.</summary><author><name>${w.given} ${w.family}</name></author>${comment}<link href="http://arxiv.org/abs/${arxiv.id}v2" rel="alternate" type="text/html"/>${pdf}</entry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>arXiv Query</title>${entries.join('')}</feed>`;
}
