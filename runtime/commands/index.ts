// Each command module registers itself with the registry when imported.
import './print';
import './exit';
import './apply-schema';
import './add-column';
import './zip-column';
import './apply-pipeline';
import './apply-filter';
import './select-drive';
import './apply-tx';
import './select-http';
