/** Every log row (admin). */
import { LogsView } from './LogsView';

export default function AllLogsPage() {
  return <LogsView scope="all" />;
}
