/**
 * The ONNX graph that scores the dense index: MatMul(vectors [n, d], query [d, 1]) → scores [n, 1].
 * Written by scripts/scoring-graph.py; do not edit.
 */
export const SCORING_GRAPH_BASE64 =
  'CAgSBmF0dGVzdDqfAQogCgd2ZWN0b3JzCgVxdWVyeRIGc2NvcmVzIgZNYXRNdWwSE2F0dGVzdC1kZW5zZS1zY29yZXNaJgoHdmVj' +
  'dG9ycxIbChkIARIVCgYSBHJvd3MKCxIJZGltZW5zaW9uWiAKBXF1ZXJ5EhcKFQgBEhEKCxIJZGltZW5zaW9uCgIIAWIcCgZzY29y' +
  'ZXMSEgoQCAESDAoGEgRyb3dzCgIIAUIECgAQDQ==';
