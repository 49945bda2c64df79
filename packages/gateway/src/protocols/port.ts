/**
 * What the protocol and native-route hosts need from the task lifecycle: the lifecycle's own
 * service, narrowed to the members they call, and artifact links in the shape the renderers get.
 */
import type { ContentResponse } from '../tasks/artifacts/service.ts';
import type { Task } from '../tasks/lifecycle/context.ts';
import type { Poller } from '../tasks/lifecycle/poller.ts';
import type { TaskService } from '../tasks/lifecycle/service.ts';

export type TasksPort = Pick<TaskService, 'submit' | 'byPublicId' | 'waitForTerminal' | 'catalog'> & Pick<Poller, 'pollNow'>;

export interface ArtifactLinkLike {
  key: string;
  type: string;
  mimeType?: string;
  url: string;
}

export interface ArtifactsPort {
  /** Artifacts of a SUCCESS task with signed content URLs. */
  links(row: Task): Promise<ArtifactLinkLike[]>;
  /** Reads artifact content through the plugin's buildContentRequest. */
  content(row: Task, key: string, req: { method: string; headers: Record<string, string> }): Promise<ContentResponse>;
}
