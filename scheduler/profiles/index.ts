export {
  createProfile,
  ensureProfileIndexes,
  loadProfile,
  profileHandlers,
  profileLabel,
  profileView,
  type ProfileDoc,
  type ProfileInput,
} from './profiles.js';
