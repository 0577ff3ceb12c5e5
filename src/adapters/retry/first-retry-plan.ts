import type { RetryPlan } from '../adapter.js';

export type RetryPlanner = (status: number, body: string, sent: Record<string, unknown>) => RetryPlan | null;

/** The first planner that has a plan, in the order the adapter lists them. */
export function firstRetryPlan(planners: readonly RetryPlanner[]): RetryPlanner {
  return (status, body, sent) => {
    for (const planner of planners) {
      const plan = planner(status, body, sent);
      if (plan !== null) return plan;
    }
    return null;
  };
}
