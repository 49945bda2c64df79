/** The user's own tasks. */
import { TasksView } from './TasksView';

export default function OwnTasksPage() {
  return <TasksView scope="own" />;
}
