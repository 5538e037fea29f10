/**
 * Whether `deltas` are `pieces` as a reader of a streamed answer gets them: in order, each delta
 * one piece or several whole pieces that arrived together (the drivers join the deltas of one
 * read), none cut and none missing.
 */
export function arrivedAsPieces(deltas: readonly string[], pieces: readonly string[]): boolean {
  let next = 0;
  for (const delta of deltas) {
    let joined = "";
    while (joined.length < delta.length && next < pieces.length) joined += pieces[next++];
    if (joined !== delta) return false;
  }
  return next === pieces.length;
}
