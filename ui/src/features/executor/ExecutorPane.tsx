/** Executor pane (being built). */
export function ExecutorPane({ active }: { active: boolean }) {
  return <section className="pane" data-active={active}><h2>Executor</h2></section>;
}
