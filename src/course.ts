/**
 * pagelog/course: the four storage exercises of "Build your own Kafka" as plug-in policies.
 * `kafkaPolicies` holds pagelog's answers in the course's shapes; `checkPolicies` runs anyone's
 * answers through the unit cases `pagelog check` prints. Browser-safe (no `node:` import).
 * docs/entry-points.md lists each export; docs/homework.md walks through the exercises.
 */
export { kafkaPolicies } from "./course/kafka-policies.js";
export { recoverHelpers } from "./segment/policies/recover-helpers.js";
export { POLICY_NAMES } from "./policies/policy-types.js";
export type {
  CoursePolicies,
  IndexEntry,
  PolicyName,
  RecoverHelpers,
  RetentionConfig,
  RetentionSegment,
} from "./policies/policy-types.js";
export { checkPolicies } from "./course/check-policies.js";
export type { FailedCase, PoliciesCheck, PolicyCheck } from "./course/check-policies.js";
