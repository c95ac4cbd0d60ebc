import { useTranslation } from 'react-i18next';

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

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
  const parts = [
    topic && !same(topic, title) ? t('results.topicLine', { topic }) : '',
    keyword && !same(keyword, topic) && !same(keyword, title) ? t('results.keywordLine', { keyword }) : '',
  ].filter(Boolean);
  if (parts.length === 0) return null;
  return (
    <span className={`block break-words text-xs text-slate-600 ${className}`} data-testid="result-topic">
      {parts.join(' · ')}
    </span>
  );
}
