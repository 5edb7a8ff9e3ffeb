/**
 * The ONNX graph that searches the dense index: TopK(MatMul(vectors [n, d], query [d, 1]), k) → best
 * and rows [k, 1].
 * Written by scripts/scoring-graph.py; do not edit.
 */
export const SCORING_GRAPH_BASE64 =
  'CAgSBmF0dGVzdDqPAgogCgd2ZWN0b3JzCgVxdWVyeRIGc2NvcmVzIgZNYXRNdWwKSQoGc2NvcmVzCgFrEgRiZXN0EgRyb3dzIgRU' +
  'b3BLKgsKBGF4aXMYAKABAioOCgdsYXJnZXN0GAGgAQIqDQoGc29ydGVkGAGgAQISE2F0dGVzdC1kZW5zZS1zZWFyY2haJgoHdmVj' +
  'dG9ycxIbChkIARIVCgYSBHJvd3MKCxIJZGltZW5zaW9uWiAKBXF1ZXJ5EhcKFQgBEhEKCxIJZGltZW5zaW9uCgIIAVoPCgFrEgoK' +
  'CAgHEgQKAggBYhcKBGJlc3QSDwoNCAESCQoDEgFrCgIIAWIXCgRyb3dzEg8KDQgHEgkKAxIBawoCCAFCBAoAEA0=';
