/** Parser pane (being built). */
export function ParserPane({ active }: { active: boolean }) {
  return <section className="pane" data-active={active}><h2>Parser</h2></section>;
}
