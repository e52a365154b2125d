// Each command module registers itself with the registry when imported.
import './print';
import './exit';
import './apply-schema';
