/** The user's own log rows. */
import { LogsView } from './LogsView';

export default function OwnLogsPage() {
  return <LogsView scope="own" />;
}
