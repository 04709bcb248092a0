/** A violation's journal entries as links (`#12 #13`): a click shows the entry in the callbacks list. */
export function JournalLinks({ ids, onShow }: { ids: readonly number[]; onShow: (journalId: number) => void }) {
  return (
    <>
      {ids.map((id) => (
        <>
          {' '}
          <a
            href={`#entry-${id}`}
            class="journal-link"
            onClick={(e) => {
              e.preventDefault();
              onShow(id);
            }}
          >
            #{id}
          </a>
        </>
      ))}
    </>
  );
}
