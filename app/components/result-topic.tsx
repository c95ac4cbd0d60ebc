import { useTranslation } from 'react-i18next';
import type { Translate } from '~/utils/generation-schema';

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The line under a title naming its topic and keyword where they differ from it ('' when neither does). */
export function topicLine(t: Translate, title: string, topic: string, keyword?: string | null): string {
  return [
    topic && !same(topic, title) ? t('results.topicLine', { topic }) : '',
    keyword && !same(keyword, topic) && !same(keyword, title) ? t('results.keywordLine', { keyword }) : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * Under a generated title, what the post was asked for: its topic and its focus keyword, each only
 * when it says something the title does not, so results with the same title can be told apart.
 */
export function ResultTopic({
  title,
  topic,
  keyword,
  className = '',
}: {
  title: string;
  topic: string;
  keyword?: string | null;
  className?: string;
}) {
  const { t } = useTranslation('workspace');
  return <TopicLine line={topicLine(t as Translate, title, topic, keyword)} className={className} />;
}

/** The topic line as shown (nothing when empty), for a list that translated it already. */
export function TopicLine({ line, className = '' }: { line: string; className?: string }) {
  if (!line) return null;
  return (
    <span className={`block break-words text-xs text-slate-600 ${className}`} data-testid="result-topic">
      {line}
    </span>
  );
}
