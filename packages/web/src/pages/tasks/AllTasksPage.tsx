/** Every task (admin), with details and resolutions. */
import { TasksView } from './TasksView';

export default function AllTasksPage() {
  return <TasksView scope="all" />;
}
