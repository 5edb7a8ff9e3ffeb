import type { SourceRecord } from '../../../src/core/sources/types';

/** Crossref's record of a real paper, as the sources' clients return it. */
export const RESNET: SourceRecord = {
  source: 'crossref',
  id: '10.1109/cvpr.2016.90',
  title: 'Deep Residual Learning for Image Recognition',
  authors: [
    { family: 'He', given: 'Kaiming' },
    { family: 'Zhang', given: 'Xiangyu' },
    { family: 'Ren', given: 'Shaoqing' },
    { family: 'Sun', given: 'Jian' },
  ],
  year: 2016,
  venue: '2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)',
  doi: '10.1109/cvpr.2016.90',
};
