export {
  createProfile,
  ensureProfileIndexes,
  loadProfile,
  profileHandlers,
  profileLabel,
  type ProfileDoc,
} from './profiles.js';
