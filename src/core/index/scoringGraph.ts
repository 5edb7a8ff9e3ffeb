/**
 * The ONNX graph that scores the dense index: MatMul(query [1, d], blocks [b, d, k]) → scores [b, 1, k].
 * Written by scripts/scoring-graph.py; do not edit.
 */
export const SCORING_GRAPH_BASE64 =
  'CAgSBmF0dGVzdDqxAQofCgVxdWVyeQoGYmxvY2tzEgZzY29yZXMiBk1hdE11bBITYXR0ZXN0LWRlbnNlLXNjb3Jlc1ogCgVxdWVy' +
  'eRIXChUIARIRCgIIAQoLEglkaW1lbnNpb25aLwoGYmxvY2tzEiUKIwgBEh8KCBIGYmxvY2tzCgsSCWRpbWVuc2lvbgoGEgRyb3dz' +
  'YiYKBnNjb3JlcxIcChoIARIWCggSBmJsb2NrcwoCCAEKBhIEcm93c0IECgAQDQ==';
